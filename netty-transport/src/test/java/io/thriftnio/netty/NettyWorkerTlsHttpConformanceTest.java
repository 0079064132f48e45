package io.thriftnio.netty;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.WireTransport;
import io.thriftnio.core.tls.ServerTls;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ClientKinds;
import io.thriftnio.testkit.conformance.ConformanceSuite;
import io.thriftnio.testkit.tls.TestPki;

/**
 * The conformance suite for HTTPS peers: Netty server on NIO with TLS, accepting framed, unframed
 * and HTTP on one port, WORKER; stock libthrift {@code THttpClient} on Apache HttpClient 5 over
 * HTTPS, verifying the server's host name (the suite's raw-frame tests stay framed, over TLS).
 */
class NettyWorkerTlsHttpConformanceTest extends ConformanceSuite {
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
    return IoStrategy.WORKER;
  }

  @Override
  protected ServerTls serverTls() {
    return TestPki.shared().serverTls().build();
  }

  @Override
  protected boolean servesHttp() {
    return true;
  }

  @Override
  protected ClientKind clientKind() {
    return ClientKinds.stockHttpsApache("/thrift", TestPki.shared().sslContext(null));
  }
}
