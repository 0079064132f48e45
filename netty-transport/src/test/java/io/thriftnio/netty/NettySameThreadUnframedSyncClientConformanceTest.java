package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.ClientKind;

/**
 * {@link NettySameThreadUnframedConformanceTest} with this library's unframed clients: core's sync
 * transport.
 */
class NettySameThreadUnframedSyncClientConformanceTest
    extends NettySameThreadUnframedConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return NettyClientKinds.unframedSyncTransport();
  }
}
