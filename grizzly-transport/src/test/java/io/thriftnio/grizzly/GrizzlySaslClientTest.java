package io.thriftnio.grizzly;

import io.thriftnio.core.ClientIo;
import io.thriftnio.testkit.conformance.SaslClientSuite;

/** The SASL client suite on {@link GrizzlyClientIo}. */
class GrizzlySaslClientTest extends SaslClientSuite {
  @Override
  protected ClientIo resources() {
    return GrizzlyClientKinds.resources();
  }
}
