package io.thriftnio.it.bench;

import io.thriftnio.core.ServerConfig;
import io.thriftnio.core.ServerStats;
import io.thriftnio.core.ThriftServer;
import java.net.InetSocketAddress;

/** A started server row. {@link #close()} is graceful and idempotent. */
interface RunningServer extends AutoCloseable {

  /** The bound address, with the real port. */
  InetSocketAddress address();

  /** Connections the server accepted, or -1 when the row does not count them. */
  default long acceptedConnections() {
    return -1;
  }

  /** The server's counters, or {@code null} when the row is not one of this library's servers. */
  default ServerStats stats() {
    return null;
  }

  /** The server's configuration, or {@code null} when the row is not one of this library's. */
  default ServerConfig config() {
    return null;
  }

  /** The server itself, or {@code null} when the row is not one of this library's servers. */
  default ThriftServer server() {
    return null;
  }

  @Override
  void close();

  /**
   * A row around another stack's server at {@code address}: the first {@link #close()} runs {@code
   * stop}, and a failure there is an {@link IllegalStateException} naming {@code what} and the
   * address.
   */
  static RunningServer of(InetSocketAddress address, String what, AutoCloseable stop) {
    return new RunningServer() {
      private boolean closed;

      @Override
      public InetSocketAddress address() {
        return address;
      }

      @Override
      public synchronized void close() {
        if (closed) {
          return;
        }
        closed = true;
        try {
          stop.close();
        } catch (Exception e) {
          throw new IllegalStateException("cannot stop " + what + " on " + address, e);
        }
      }
    };
  }
}
