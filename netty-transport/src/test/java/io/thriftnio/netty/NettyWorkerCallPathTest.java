package io.thriftnio.netty;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.CallPathSuite;

/** The call path suite: Netty server, WORKER. */
class NettyWorkerCallPathTest extends CallPathSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder();
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.WORKER;
  }
}
