package io.thriftnio.netty;

import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.ClientInterceptorSuite;

class NettyClientInterceptorTest extends ClientInterceptorSuite {
  @Override
  protected ClientIo newResources() {
    return NettyClientIo.create(1);
  }

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder();
  }
}
