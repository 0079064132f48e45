package io.thriftnio.netty;

import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.RunGateSuite;

class NettyRunGateTest extends RunGateSuite {
  @Override
  protected ServerBuilder<?> newTransportBuilder() {
    return NettyThriftServer.builder();
  }
}
