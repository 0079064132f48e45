package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.ClientKind;

/**
 * {@link NettySameThreadUnframedConformanceTest} with this library's unframed clients: Netty's
 * channel.
 */
class NettySameThreadUnframedChannelClientConformanceTest
    extends NettySameThreadUnframedConformanceTest {
  @Override
  protected ClientKind clientKind() {
    return NettyClientKinds.unframedChannel();
  }
}
