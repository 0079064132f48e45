package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.ClientKind;

/**
 * {@link GrizzlyLeaderFollowerUnframedConformanceTest} with this library's unframed clients:
 * Grizzly's channel.
 */
class GrizzlyLeaderFollowerUnframedChannelClientConformanceTest
    extends GrizzlyLeaderFollowerUnframedConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return GrizzlyClientKinds.unframedChannel();
  }
}
