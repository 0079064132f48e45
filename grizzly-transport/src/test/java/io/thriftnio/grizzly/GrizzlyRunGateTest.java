package io.thriftnio.grizzly;

import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.RunGateSuite;

class GrizzlyRunGateTest extends RunGateSuite {
  @Override
  protected ServerBuilder<?> newTransportBuilder() {
    return GrizzlyThriftServer.builder();
  }
}
