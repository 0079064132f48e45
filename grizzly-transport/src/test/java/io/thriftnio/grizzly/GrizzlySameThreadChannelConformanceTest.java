package io.thriftnio.grizzly;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ConformanceSuite;

/**
 * The conformance suite: Grizzly server, SAME_THREAD, this module's GrizzlyThriftChannel through
 * AsyncClients.
 */
class GrizzlySameThreadChannelConformanceTest extends ConformanceSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return GrizzlyThriftServer.builder();
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.SAME_THREAD;
  }

  @Override
  protected ClientKind clientKind() {
    return GrizzlyClientKinds.channel();
  }
}
