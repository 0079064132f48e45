package io.thriftnio.grizzly;

import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.THeaderClientSuite;

/** THeader clients: Grizzly, against a Grizzly server and raw THeader servers. */
class GrizzlyTHeaderClientTest extends THeaderClientSuite {
  @Override
  protected ClientIo resources() {
    return GrizzlyClientKinds.resources();
  }

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return GrizzlyThriftServer.builder().workerThreads(4);
  }
}
