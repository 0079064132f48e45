package io.thriftnio.grizzly;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.WireTransport;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ClientKinds;
import io.thriftnio.testkit.conformance.ConformanceSuite;

/**
 * The conformance suite for unframed peers: Grizzly server accepting framed and unframed,
 * LEADER_FOLLOWER, stock bare TSocket clients (the suite's raw-frame tests stay framed).
 */
class GrizzlyLeaderFollowerUnframedConformanceTest extends ConformanceSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return GrizzlyThriftServer.builder().transports(WireTransport.FRAMED, WireTransport.UNFRAMED);
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.LEADER_FOLLOWER;
  }

  @Override
  protected ClientKind clientKind() {
    return ClientKinds.stockUnframedSocket();
  }
}
