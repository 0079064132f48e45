package io.thriftnio.grizzly;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ConformanceSuite;

/**
 * The conformance suite: Grizzly server, WORKER, this module's GrizzlyThriftChannel through
 * AsyncClients.
 */
class GrizzlyWorkerChannelConformanceTest extends ConformanceSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return GrizzlyThriftServer.builder();
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.WORKER;
  }

  @Override
  protected ClientKind clientKind() {
    return GrizzlyClientKinds.channel();
  }
}
