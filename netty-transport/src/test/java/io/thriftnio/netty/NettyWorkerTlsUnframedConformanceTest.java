package io.thriftnio.netty;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.WireTransport;
import io.thriftnio.core.tls.ServerTls;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ClientKinds;
import io.thriftnio.testkit.conformance.ConformanceSuite;
import io.thriftnio.testkit.tls.TestPki;

/** The conformance suite over TLS for unframed peers: Netty server, WORKER, bare TLS sockets. */
class NettyWorkerTlsUnframedConformanceTest extends ConformanceSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder()
        .ioThreads(2)
        .transports(WireTransport.FRAMED, WireTransport.UNFRAMED);
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
  protected ClientKind clientKind() {
    return ClientKinds.stockUnframedSocket(TestPki.shared().clientSocketFactory());
  }
}
