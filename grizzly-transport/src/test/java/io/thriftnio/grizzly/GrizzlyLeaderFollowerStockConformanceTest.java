package io.thriftnio.grizzly;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.ConformanceSuite;

/**
 * The conformance suite: Grizzly server, LEADER_FOLLOWER, stock TSocket + TFramedTransport clients.
 */
class GrizzlyLeaderFollowerStockConformanceTest extends ConformanceSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return GrizzlyThriftServer.builder();
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.LEADER_FOLLOWER;
  }
}
