package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.ClientKind;

/**
 * As {@link GrizzlyWorkerHttpConformanceTest}, called through this library's HTTP sync transport.
 */
class GrizzlyWorkerHttpSyncClientConformanceTest extends GrizzlyWorkerHttpConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return GrizzlyHttpClientKinds.syncTransport("/thrift");
  }
}
