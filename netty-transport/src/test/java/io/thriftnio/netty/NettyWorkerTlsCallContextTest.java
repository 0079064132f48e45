package io.thriftnio.netty;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.CallContextSuite;

/** The call context suite: Netty server, WORKER, mutual TLS. */
class NettyWorkerTlsCallContextTest extends CallContextSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder();
  }

  @Override
  protected IoStrategy strategy() {
    return IoStrategy.WORKER;
  }

  @Override
  protected boolean tls() {
    return true;
  }
}
