package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.ClientKind;

/**
 * {@link GrizzlyWorkerUnframedConformanceTest} with this library's unframed clients: core's sync
 * transport.
 */
class GrizzlyWorkerUnframedSyncClientConformanceTest extends GrizzlyWorkerUnframedConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return GrizzlyClientKinds.unframedSyncTransport();
  }
}
