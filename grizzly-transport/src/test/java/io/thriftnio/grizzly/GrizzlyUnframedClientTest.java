package io.thriftnio.grizzly;

import io.thriftnio.core.ClientIo;
import io.thriftnio.testkit.conformance.UnframedClientSuite;

/** The unframed client suite on {@link GrizzlyClientIo}. */
class GrizzlyUnframedClientTest extends UnframedClientSuite {
  @Override
  protected ClientIo resources() {
    return GrizzlyClientKinds.resources();
  }
}
