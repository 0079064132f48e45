package io.thriftnio.netty;

import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.DroppingWorkerSuite;

/** A worker executor that drops a task: Netty server. */
class NettyDroppingWorkerTest extends DroppingWorkerSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return NettyThriftServer.builder().ioThreads(2);
  }
}
