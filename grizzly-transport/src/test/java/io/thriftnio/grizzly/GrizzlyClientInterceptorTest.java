package io.thriftnio.grizzly;

import io.thriftnio.core.ClientResources;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.ClientInterceptorSuite;

class GrizzlyClientInterceptorTest extends ClientInterceptorSuite {
  @Override
  protected ClientResources newResources() {
    return GrizzlyClientResources.create();
  }

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return GrizzlyThriftServer.builder();
  }
}
