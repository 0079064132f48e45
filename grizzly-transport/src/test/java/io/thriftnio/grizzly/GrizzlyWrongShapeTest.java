package io.thriftnio.grizzly;

import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.WrongShapeSuite;

/** Clients of the wrong shape against Grizzly servers, with Grizzly's clients (issue 38). */
class GrizzlyWrongShapeTest extends WrongShapeSuite {
  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return GrizzlyThriftServer.builder();
  }

  @Override
  protected ClientIo resources() {
    return GrizzlyClientKinds.resources();
  }
}
