package io.thriftnio.netty;

import io.thriftnio.core.ClientIo;
import io.thriftnio.testkit.conformance.ClientContractSuite;

class NettyClientContractTest extends ClientContractSuite {
  @Override
  protected ClientIo newResources() {
    return NettyClientIo.create(1);
  }
}
