package io.thriftnio.netty;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ConformanceSuite;

/**
 * The conformance suite: Netty server on NIO, WORKER, this module's {@link TNettyTransport}
 * clients.
 */
class NettyWorkerSyncTransportConformanceTest extends ConformanceSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder().transport(NettyTransportType.NIO).ioThreads(2);
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.WORKER;
  }

  @Override
  protected ClientKind clientKind() {
    return NettyClientKinds.syncTransport();
  }
}
