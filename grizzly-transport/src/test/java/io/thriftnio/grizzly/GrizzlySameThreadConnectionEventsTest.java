package io.thriftnio.grizzly;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.ConnectionEventsSuite;

/** The connection events suite: Grizzly server, SAME_THREAD. */
class GrizzlySameThreadConnectionEventsTest extends ConnectionEventsSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return GrizzlyThriftServer.builder();
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.SAME_THREAD;
  }
}
