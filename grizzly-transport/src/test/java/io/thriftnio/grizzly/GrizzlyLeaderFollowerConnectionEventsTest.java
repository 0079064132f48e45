package io.thriftnio.grizzly;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.ConnectionEventsSuite;

/** The connection events suite: Grizzly server, LEADER_FOLLOWER. */
class GrizzlyLeaderFollowerConnectionEventsTest extends ConnectionEventsSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return GrizzlyThriftServer.builder();
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.LEADER_FOLLOWER;
  }
}
