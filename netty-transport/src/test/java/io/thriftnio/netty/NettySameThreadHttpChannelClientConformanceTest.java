package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.ClientKind;

/** As {@link NettySameThreadHttpConformanceTest}, called through this library's HTTP channel. */
class NettySameThreadHttpChannelClientConformanceTest extends NettySameThreadHttpConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return NettyHttpClientKinds.channel("/thrift");
  }
}
