package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ClientKinds;

/**
 * As {@link GrizzlyLeaderFollowerHttpConformanceTest}, with THttpClient's other back-end, Apache
 * HttpClient 5.
 */
class GrizzlyLeaderFollowerHttpApacheConformanceTest
    extends GrizzlyLeaderFollowerHttpConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return ClientKinds.stockHttpApache("/thrift");
  }
}
