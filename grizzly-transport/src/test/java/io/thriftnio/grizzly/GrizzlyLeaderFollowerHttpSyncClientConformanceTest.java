package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.ClientKind;

/**
 * As {@link GrizzlyLeaderFollowerHttpConformanceTest}, called through this library's HTTP sync
 * transport.
 */
class GrizzlyLeaderFollowerHttpSyncClientConformanceTest
    extends GrizzlyLeaderFollowerHttpConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return GrizzlyHttpClientKinds.syncTransport("/thrift");
  }
}
