package io.thriftnio.netty;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.ConformanceSuite;

/** The conformance suite: Netty server on NIO, WORKER, stock TSocket + TFramedTransport clients. */
class NettyWorkerStockConformanceTest extends ConformanceSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder().transport(NettyTransportType.NIO).ioThreads(2);
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.WORKER;
  }
}
