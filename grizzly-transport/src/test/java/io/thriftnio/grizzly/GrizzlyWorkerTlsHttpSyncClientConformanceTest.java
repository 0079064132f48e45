package io.thriftnio.grizzly;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.WireTransport;
import io.thriftnio.core.tls.ServerTls;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ConformanceSuite;
import io.thriftnio.testkit.tls.TestPki;

/**
 * The conformance suite over HTTPS: Grizzly server, WORKER, TLS, accepting framed, unframed and
 * HTTP on one port, called through this library's HTTP sync transport over TLS.
 */
class GrizzlyWorkerTlsHttpSyncClientConformanceTest extends ConformanceSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return GrizzlyThriftServer.builder()
        .transports(WireTransport.FRAMED, WireTransport.UNFRAMED, WireTransport.HTTP)
        .httpPath("/thrift");
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
  protected boolean servesHttp() {
    return true;
  }

  @Override
  protected ClientKind clientKind() {
    return GrizzlyHttpClientKinds.syncTransport("/thrift", TestPki.shared().clientTls().build());
  }
}
