package io.thriftnio.grizzly;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.CallContextSuite;

/** The call context suite: Grizzly server, SAME_THREAD. */
class GrizzlySameThreadCallContextTest extends CallContextSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return GrizzlyThriftServer.builder();
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.SAME_THREAD;
  }
}
