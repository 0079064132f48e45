package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.tls.TestPki;

/** As {@link NettyWorkerTlsHttpSyncClientConformanceTest}, through the HTTP channel over TLS. */
class NettyWorkerTlsHttpChannelClientConformanceTest
    extends NettyWorkerTlsHttpSyncClientConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return NettyHttpClientKinds.channel("/thrift", TestPki.shared().clientTls().build());
  }
}
