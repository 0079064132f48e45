package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.ClientKind;

/**
 * As {@link GrizzlySameThreadHttpConformanceTest}, called through this library's HTTP sync
 * transport.
 */
class GrizzlySameThreadHttpSyncClientConformanceTest extends GrizzlySameThreadHttpConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return GrizzlyHttpClientKinds.syncTransport("/thrift");
  }
}
