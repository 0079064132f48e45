package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.ClientKind;

/**
 * {@link GrizzlyWorkerTlsUnframedConformanceTest} with this library's unframed clients: Grizzly's
 * TLS sync transport.
 */
class GrizzlyWorkerTlsUnframedSyncClientConformanceTest
    extends GrizzlyWorkerTlsUnframedConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return GrizzlyClientKinds.tlsUnframedSyncTransport();
  }
}
