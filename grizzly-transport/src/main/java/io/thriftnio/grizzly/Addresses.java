package io.thriftnio.grizzly;

import java.net.SocketAddress;
import org.glassfish.grizzly.Connection;

/**
 * A Grizzly connection's addresses, typed: {@code Connection<?>} hands them out as its type
 * parameter, which for TCP is always a {@link SocketAddress}.
 */
final class Addresses {

  private Addresses() {}

  /** The peer's address; {@code null} if the connection has none that is a socket address. */
  static SocketAddress peer(Connection<?> connection) {
    return typed(connection.getPeerAddress());
  }

  /** This side's address; {@code null} if the connection has none that is a socket address. */
  static SocketAddress local(Connection<?> connection) {
    return typed(connection.getLocalAddress());
  }

  private static SocketAddress typed(Object address) {
    return address instanceof SocketAddress a ? a : null;
  }
}
