package io.thriftnio.grizzly;

import io.thriftnio.core.ClientIo;
import io.thriftnio.testkit.conformance.ClientContractSuite;

class GrizzlyClientContractTest extends ClientContractSuite {
  @Override
  protected ClientIo newResources() {
    return GrizzlyClientIo.create();
  }
}
