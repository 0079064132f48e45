package io.thriftnio.netty;

import io.thriftnio.core.ClientResources;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.ClientInterceptorSuite;

class NettyClientInterceptorTest extends ClientInterceptorSuite {
  @Override
  protected ClientResources newResources() {
    return NettyClientResources.create(1);
  }

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder();
  }
}
