package io.thriftnio.grizzly;

import io.thriftnio.testkit.conformance.HostileServerSuite;
import java.util.List;
import org.junit.jupiter.api.AfterAll;

/** The hostile-server suite on a bare Grizzly channel. */
class GrizzlyHostileServerTest extends HostileServerSuite {
  private final GrizzlyClientIo io = GrizzlyClientIo.create();

  @Override
  protected List<Kind> kinds() {
    return List.of(channel("channel/grizzly", io));
  }

  @AfterAll
  void closeIo() {
    io.close();
  }
}
