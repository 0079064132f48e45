package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.ClientKind;

/**
 * {@link NettyWorkerUnframedConformanceTest} with this library's unframed clients: core's sync
 * transport.
 */
class NettyWorkerUnframedSyncClientConformanceTest extends NettyWorkerUnframedConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return NettyClientKinds.unframedSyncTransport();
  }
}
