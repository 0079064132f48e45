package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.ClientKind;

/**
 * As {@link GrizzlyLeaderFollowerHttpConformanceTest}, called through this library's HTTP channel.
 */
class GrizzlyLeaderFollowerHttpChannelClientConformanceTest
    extends GrizzlyLeaderFollowerHttpConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return GrizzlyHttpClientKinds.channel("/thrift");
  }
}
