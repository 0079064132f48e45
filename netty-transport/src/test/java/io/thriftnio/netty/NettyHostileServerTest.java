package io.thriftnio.netty;

import io.thriftnio.testkit.conformance.HostileServerSuite;
import java.util.List;
import org.junit.jupiter.api.AfterAll;

/** The hostile-server suite on a bare Netty channel. */
class NettyHostileServerTest extends HostileServerSuite {
  private final NettyClientIo io = NettyClientIo.create(1);

  @Override
  protected List<Kind> kinds() {
    return List.of(channel("channel/netty", io));
  }

  @AfterAll
  void closeIo() {
    io.close();
  }
}
