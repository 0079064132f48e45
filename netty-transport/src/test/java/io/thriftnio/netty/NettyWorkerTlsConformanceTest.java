package io.thriftnio.netty;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.tls.ServerTls;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ConformanceSuite;
import io.thriftnio.testkit.tls.TestPki;

/** The conformance suite over TLS: Netty server, WORKER, {@link TNettyTransport} TLS clients. */
class NettyWorkerTlsConformanceTest extends ConformanceSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder().ioThreads(2);
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
    return NettyClientKinds.syncTransport(TestPki.shared().clientTls().build());
  }
}
