package io.thriftnio.netty;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.WireTransport;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ClientKinds;
import io.thriftnio.testkit.conformance.ConformanceSuite;

/**
 * The conformance suite for unframed peers: Netty server on NIO accepting framed and unframed,
 * WORKER, stock bare TSocket clients (the suite's raw-frame tests stay framed).
 */
class NettyWorkerUnframedConformanceTest extends ConformanceSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder()
        .transport(NettyTransportType.NIO)
        .ioThreads(2)
        .transports(WireTransport.FRAMED, WireTransport.UNFRAMED);
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.WORKER;
  }

  @Override
  protected ClientKind clientKind() {
    return ClientKinds.stockUnframedSocket();
  }
}
