package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.ClientKind;

/**
 * {@link NettyWorkerUnframedConformanceTest} with this library's unframed clients: Netty's channel.
 */
class NettyWorkerUnframedChannelClientConformanceTest extends NettyWorkerUnframedConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return NettyClientKinds.unframedChannel();
  }
}
