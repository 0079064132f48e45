package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.ClientKind;

/**
 * {@link GrizzlyWorkerTlsUnframedConformanceTest} with this library's unframed clients: Grizzly's
 * channel over TLS.
 */
class GrizzlyWorkerTlsUnframedChannelClientConformanceTest
    extends GrizzlyWorkerTlsUnframedConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return GrizzlyClientKinds.tlsUnframedChannel();
  }
}
