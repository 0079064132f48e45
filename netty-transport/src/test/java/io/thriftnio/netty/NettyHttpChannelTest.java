package io.thriftnio.netty;

import io.thriftnio.core.ClientIo;
import io.thriftnio.testkit.conformance.HttpChannelSuite;

/** The HTTP channel against scripted HTTP servers: Netty on NIO. */
class NettyHttpChannelTest extends HttpChannelSuite {
  @Override
  protected ClientIo resources() {
    return NettyClientKinds.RESOURCES;
  }
}
