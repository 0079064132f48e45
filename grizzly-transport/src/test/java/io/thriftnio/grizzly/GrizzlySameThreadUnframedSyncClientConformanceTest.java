package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.ClientKind;

/**
 * {@link GrizzlySameThreadUnframedConformanceTest} with this library's unframed clients: core's
 * sync transport.
 */
class GrizzlySameThreadUnframedSyncClientConformanceTest
    extends GrizzlySameThreadUnframedConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return GrizzlyClientKinds.unframedSyncTransport();
  }
}
