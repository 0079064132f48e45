package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.ClientKind;

/**
 * {@link GrizzlySameThreadUnframedConformanceTest} with this library's unframed clients: Grizzly's
 * channel.
 */
class GrizzlySameThreadUnframedChannelClientConformanceTest
    extends GrizzlySameThreadUnframedConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return GrizzlyClientKinds.unframedChannel();
  }
}
