package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.ClientKind;

/** As {@link NettyWorkerHttpConformanceTest}, called through this library's HTTP channel. */
class NettyWorkerHttpChannelClientConformanceTest extends NettyWorkerHttpConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return NettyHttpClientKinds.channel("/thrift");
  }
}
