package io.thriftnio.netty;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.ConnectionEventsSuite;

/** The connection events suite: Netty server, WORKER. */
class NettyWorkerConnectionEventsTest extends ConnectionEventsSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder();
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.WORKER;
  }
}
