package io.thriftnio.grizzly;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.CallPathSuite;

/** The call path suite: Grizzly server, LEADER_FOLLOWER. */
class GrizzlyLeaderFollowerCallPathTest extends CallPathSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return GrizzlyThriftServer.builder();
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.LEADER_FOLLOWER;
  }
}
