package io.thriftnio.netty;

import io.thriftnio.core.ClientResources;
import io.thriftnio.testkit.conformance.HttpChannelSuite;

/** The HTTP channel against scripted HTTP servers: Netty on NIO. */
class NettyHttpChannelTest extends HttpChannelSuite {
  @Override
  protected ClientResources resources() {
    return NettyClientKinds.RESOURCES;
  }
}
