package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.ClientKind;

/**
 * As {@link NettySameThreadHttpConformanceTest}, called through this library's HTTP sync transport.
 */
class NettySameThreadHttpSyncClientConformanceTest extends NettySameThreadHttpConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return NettyHttpClientKinds.syncTransport("/thrift");
  }
}
