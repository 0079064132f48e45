package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.ClientKind;

/**
 * {@link GrizzlyWorkerUnframedConformanceTest} with this library's unframed clients: Grizzly's
 * channel.
 */
class GrizzlyWorkerUnframedChannelClientConformanceTest
    extends GrizzlyWorkerUnframedConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return GrizzlyClientKinds.unframedChannel();
  }
}
