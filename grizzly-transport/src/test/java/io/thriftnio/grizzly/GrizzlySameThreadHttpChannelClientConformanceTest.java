package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.ClientKind;

/** As {@link GrizzlySameThreadHttpConformanceTest}, called through this library's HTTP channel. */
class GrizzlySameThreadHttpChannelClientConformanceTest
    extends GrizzlySameThreadHttpConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return GrizzlyHttpClientKinds.channel("/thrift");
  }
}
