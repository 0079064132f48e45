package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.tls.TestPki;

/** As {@link GrizzlyWorkerTlsHttpSyncClientConformanceTest}, through the HTTP channel over TLS. */
class GrizzlyWorkerTlsHttpChannelClientConformanceTest
    extends GrizzlyWorkerTlsHttpSyncClientConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return GrizzlyHttpClientKinds.channel("/thrift", TestPki.shared().clientTls().build());
  }
}
