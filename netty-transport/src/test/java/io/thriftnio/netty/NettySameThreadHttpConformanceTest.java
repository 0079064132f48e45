package io.thriftnio.netty;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.WireTransport;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ClientKinds;
import io.thriftnio.testkit.conformance.ConformanceSuite;

/**
 * The conformance suite for HTTP peers: Netty server on NIO accepting framed, unframed and HTTP on
 * one port, SameThread, stock libthrift THttpClient (the suite's raw-frame tests stay framed).
 */
class NettySameThreadHttpConformanceTest extends ConformanceSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder()
        .transport(NettyTransportType.NIO)
        .ioThreads(2)
        .transports(WireTransport.FRAMED, WireTransport.UNFRAMED, WireTransport.HTTP)
        .httpPath("/thrift");
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.SAME_THREAD;
  }

  @Override
  protected boolean servesHttp() {
    return true;
  }

  @Override
  protected ClientKind clientKind() {
    return ClientKinds.stockHttp("/thrift");
  }
}
