package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.ClientKind;

/** As {@link GrizzlyWorkerHttpConformanceTest}, called through this library's HTTP channel. */
class GrizzlyWorkerHttpChannelClientConformanceTest extends GrizzlyWorkerHttpConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return GrizzlyHttpClientKinds.channel("/thrift");
  }
}
