package io.thriftnio.netty;

import io.thriftnio.core.ClientIo;
import io.thriftnio.testkit.conformance.SaslClientSuite;

/** The SASL client suite on {@link NettyClientIo} (NIO event loops). */
class NettySaslClientTest extends SaslClientSuite {
  @Override
  protected ClientIo resources() {
    return NettyClientKinds.RESOURCES;
  }
}
