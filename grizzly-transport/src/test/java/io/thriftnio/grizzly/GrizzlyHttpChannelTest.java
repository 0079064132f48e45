package io.thriftnio.grizzly;

import io.thriftnio.core.ClientResources;
import io.thriftnio.testkit.conformance.HttpChannelSuite;

/** The HTTP channel against scripted HTTP servers: Grizzly. */
class GrizzlyHttpChannelTest extends HttpChannelSuite {
  @Override
  protected ClientResources resources() {
    return GrizzlyClientKinds.resources();
  }
}
