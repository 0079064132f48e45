package io.thriftnio.grizzly;

import io.thriftnio.core.ClientResources;
import io.thriftnio.testkit.conformance.UnframedClientSuite;

/** The unframed client suite on {@link GrizzlyClientResources}. */
class GrizzlyUnframedClientTest extends UnframedClientSuite {
  @Override
  protected ClientResources resources() {
    return GrizzlyClientKinds.resources();
  }
}
