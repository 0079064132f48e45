package io.thriftnio.grizzly;

import io.thriftnio.core.ClientIo;
import io.thriftnio.testkit.conformance.HttpChannelSuite;

/** The HTTP channel against scripted HTTP servers: Grizzly. */
class GrizzlyHttpChannelTest extends HttpChannelSuite {
  @Override
  protected ClientIo resources() {
    return GrizzlyClientKinds.resources();
  }
}
