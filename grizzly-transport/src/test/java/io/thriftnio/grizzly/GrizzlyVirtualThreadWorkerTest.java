package io.thriftnio.grizzly;

import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.VirtualThreadWorkerSuite;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/** The suite on Java 21+; JUnit does not inherit the suite's JRE condition, so it is repeated. */
@EnabledForJreRange(min = JRE.JAVA_21)
class GrizzlyVirtualThreadWorkerTest extends VirtualThreadWorkerSuite {
  @Override
  protected ServerBuilder<?> newTransportBuilder() {
    return GrizzlyThriftServer.builder();
  }
}
