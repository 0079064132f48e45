package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ClientKinds;

/**
 * As {@link GrizzlyWorkerHttpConformanceTest}, with THttpClient's other back-end, Apache HttpClient
 * 5.
 */
class GrizzlyWorkerHttpApacheConformanceTest extends GrizzlyWorkerHttpConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return ClientKinds.stockHttpApache("/thrift");
  }
}
