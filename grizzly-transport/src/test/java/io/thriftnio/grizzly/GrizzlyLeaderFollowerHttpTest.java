package io.thriftnio.grizzly;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.HttpSuite;

/** HTTP peers beyond the conformance suite: Grizzly server, LEADER_FOLLOWER. */
class GrizzlyLeaderFollowerHttpTest extends HttpSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return GrizzlyThriftServer.builder();
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.LEADER_FOLLOWER;
  }
}
