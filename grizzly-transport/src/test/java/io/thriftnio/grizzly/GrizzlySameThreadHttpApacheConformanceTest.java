package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ClientKinds;

/**
 * As {@link GrizzlySameThreadHttpConformanceTest}, with THttpClient's other back-end, Apache
 * HttpClient 5.
 */
class GrizzlySameThreadHttpApacheConformanceTest extends GrizzlySameThreadHttpConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return ClientKinds.stockHttpApache("/thrift");
  }
}
