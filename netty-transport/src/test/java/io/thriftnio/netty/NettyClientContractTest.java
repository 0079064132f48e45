package io.thriftnio.netty;

import io.thriftnio.core.ClientResources;
import io.thriftnio.testkit.conformance.ClientContractSuite;

class NettyClientContractTest extends ClientContractSuite {
  @Override
  protected ClientResources newResources() {
    return NettyClientResources.create(1);
  }
}
