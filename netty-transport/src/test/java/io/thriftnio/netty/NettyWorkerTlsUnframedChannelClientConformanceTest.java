package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.tls.TestPki;

/**
 * {@link NettyWorkerTlsUnframedConformanceTest} with this library's unframed clients: Netty's
 * channel over TLS.
 */
class NettyWorkerTlsUnframedChannelClientConformanceTest
    extends NettyWorkerTlsUnframedConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return NettyClientKinds.unframedChannel(TestPki.shared().clientTls().build());
  }
}
