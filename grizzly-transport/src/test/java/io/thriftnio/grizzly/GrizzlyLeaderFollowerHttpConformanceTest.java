package io.thriftnio.grizzly;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.WireTransport;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ClientKinds;
import io.thriftnio.testkit.conformance.ConformanceSuite;

/**
 * The conformance suite for HTTP peers: Grizzly server accepting framed, unframed and HTTP on one
 * port, LEADER_FOLLOWER, stock libthrift THttpClient (the suite's raw-frame tests stay framed).
 */
class GrizzlyLeaderFollowerHttpConformanceTest extends ConformanceSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return GrizzlyThriftServer.builder()
        .transports(WireTransport.FRAMED, WireTransport.UNFRAMED, WireTransport.HTTP)
        .httpPath("/thrift");
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.LEADER_FOLLOWER;
  }

  @Override
  protected boolean servesHttp() {
    return true;
  }

  @Override
  protected ClientKind clientKind() {
    return ClientKinds.stockHttp("/thrift");
  }
}
