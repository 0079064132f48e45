package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ClientKinds;

/**
 * As {@link NettyWorkerHttpConformanceTest}, with THttpClient's other back-end, Apache HttpClient
 * 5.
 */
class NettyWorkerHttpApacheConformanceTest extends NettyWorkerHttpConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return ClientKinds.stockHttpApache("/thrift");
  }
}
