package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.ClientKind;

/** As {@link NettyWorkerHttpConformanceTest}, called through this library's HTTP sync transport. */
class NettyWorkerHttpSyncClientConformanceTest extends NettyWorkerHttpConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return NettyHttpClientKinds.syncTransport("/thrift");
  }
}
