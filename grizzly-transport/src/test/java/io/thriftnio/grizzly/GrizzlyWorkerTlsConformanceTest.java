package io.thriftnio.grizzly;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.tls.ServerTls;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ConformanceSuite;
import io.thriftnio.testkit.tls.TestPki;

/** The conformance suite over TLS: Grizzly server, WORKER, GrizzlyThriftChannel TLS clients. */
class GrizzlyWorkerTlsConformanceTest extends ConformanceSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return GrizzlyThriftServer.builder();
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.WORKER;
  }

  @Override
  protected ServerTls serverTls() {
    return TestPki.shared().serverTls().build();
  }

  @Override
  protected ClientKind clientKind() {
    return GrizzlyClientKinds.tlsChannel();
  }
}
