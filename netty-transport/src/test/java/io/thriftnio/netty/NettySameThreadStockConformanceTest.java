package io.thriftnio.netty;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.ConformanceSuite;

/**
 * The conformance suite: Netty server on NIO, SAME_THREAD, stock TSocket + TFramedTransport
 * clients.
 */
class NettySameThreadStockConformanceTest extends ConformanceSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder().transport(NettyTransportType.NIO).ioThreads(2);
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.SAME_THREAD;
  }
}
