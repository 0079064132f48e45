package io.thriftnio.netty;

import io.thriftnio.core.ClientResources;
import io.thriftnio.testkit.conformance.UnframedClientSuite;

/** The unframed client suite on {@link NettyClientResources} (NIO event loops). */
class NettyUnframedClientTest extends UnframedClientSuite {
  @Override
  protected ClientResources resources() {
    return NettyClientKinds.RESOURCES;
  }
}
