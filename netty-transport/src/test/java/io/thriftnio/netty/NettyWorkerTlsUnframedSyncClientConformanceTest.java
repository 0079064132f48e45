package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.tls.TestPki;

/**
 * {@link NettyWorkerTlsUnframedConformanceTest} with this library's unframed clients: Netty's TLS
 * sync transport.
 */
class NettyWorkerTlsUnframedSyncClientConformanceTest
    extends NettyWorkerTlsUnframedConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return NettyClientKinds.unframedSyncTransport(TestPki.shared().clientTls().build());
  }
}
