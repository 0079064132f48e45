package io.thriftnio.grizzly;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ConformanceSuite;

/**
 * The conformance suite: Grizzly server, LEADER_FOLLOWER, this module's TGrizzlyClientTransport.
 */
class GrizzlyLeaderFollowerSyncConformanceTest extends ConformanceSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return GrizzlyThriftServer.builder();
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.LEADER_FOLLOWER;
  }

  @Override
  protected ClientKind clientKind() {
    return GrizzlyClientKinds.syncTransport();
  }
}
