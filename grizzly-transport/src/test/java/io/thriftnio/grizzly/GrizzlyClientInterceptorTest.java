package io.thriftnio.grizzly;

import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.ClientInterceptorSuite;

class GrizzlyClientInterceptorTest extends ClientInterceptorSuite {
  @Override
  protected ClientIo newResources() {
    return GrizzlyClientIo.create();
  }

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return GrizzlyThriftServer.builder();
  }
}
