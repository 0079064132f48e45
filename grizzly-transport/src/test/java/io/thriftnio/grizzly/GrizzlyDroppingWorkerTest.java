package io.thriftnio.grizzly;

import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.DroppingWorkerSuite;

/** A worker executor that drops a task: Grizzly server. */
class GrizzlyDroppingWorkerTest extends DroppingWorkerSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return GrizzlyThriftServer.builder().ioThreads(2);
  }
}
