package io.thriftnio.netty;

import io.thriftnio.core.ClientIo;
import io.thriftnio.testkit.conformance.UnframedClientSuite;

/** The unframed client suite on {@link NettyClientIo} (NIO event loops). */
class NettyUnframedClientTest extends UnframedClientSuite {
  @Override
  protected ClientIo resources() {
    return NettyClientKinds.RESOURCES;
  }
}
