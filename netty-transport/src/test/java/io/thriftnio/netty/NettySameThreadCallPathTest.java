package io.thriftnio.netty;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.CallPathSuite;

/** The call path suite: Netty server, SAME_THREAD. */
class NettySameThreadCallPathTest extends CallPathSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder();
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.SAME_THREAD;
  }
}
