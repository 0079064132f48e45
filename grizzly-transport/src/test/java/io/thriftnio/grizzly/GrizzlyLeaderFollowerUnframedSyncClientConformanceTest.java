package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.ClientKind;

/**
 * {@link GrizzlyLeaderFollowerUnframedConformanceTest} with this library's unframed clients: core's
 * sync transport.
 */
class GrizzlyLeaderFollowerUnframedSyncClientConformanceTest
    extends GrizzlyLeaderFollowerUnframedConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return GrizzlyClientKinds.unframedSyncTransport();
  }
}
