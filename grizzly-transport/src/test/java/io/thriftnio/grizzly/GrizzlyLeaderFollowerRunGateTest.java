package io.thriftnio.grizzly;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.RunGateSuite;

class GrizzlyLeaderFollowerRunGateTest extends RunGateSuite {
  @Override
  protected ServerBuilder<?> newTransportBuilder() {
    return GrizzlyThriftServer.builder();
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.LEADER_FOLLOWER;
  }
}
