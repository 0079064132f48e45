package io.thriftnio.grizzly;

import io.thriftnio.core.ClientResources;
import io.thriftnio.testkit.conformance.ClientContractSuite;

class GrizzlyClientContractTest extends ClientContractSuite {
  @Override
  protected ClientResources newResources() {
    return GrizzlyClientResources.create();
  }
}
