package io.thriftnio.core.internal.server;

import io.thriftnio.core.CloseCause;
import io.thriftnio.core.ConnectionInfo;
import io.thriftnio.core.ConnectionListener;
import io.thriftnio.core.ServerConfig;
import io.thriftnio.core.internal.EveryPowerOfTwo;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls a server's {@link ConnectionListener}s, in order, each guarded: a listener that throws is
 * logged (the 1st, 2nd, 4th, 8th ... failure, with the running count) and the others, the
 * connection and the call go on. Holds no lock while a listener runs. Exists only for a server with
 * listeners: without any, the registry and the call path see {@code null} and do no work. Not part
 * of the API.
 *
 * <p>When each event fires is decided by {@link RegisteredConnection} (open after the TLS
 * handshake, close after open, exactly once) and {@link ConnectionRegistry} (the cause).
 */
public final class ConnectionEvents {

  private static final Logger log = LoggerFactory.getLogger(ConnectionEvents.class);

  private final List<ConnectionListener> listeners;
  private final boolean opensAfterTls;
  private final EveryPowerOfTwo failures = new EveryPowerOfTwo();

  /**
   * @param listeners the listeners, in the order they run
   * @param opensAfterTls whether connections open once their TLS handshake completes (a TLS server)
   *     rather than at accept
   */
  public ConnectionEvents(List<ConnectionListener> listeners, boolean opensAfterTls) {
    this.listeners = List.copyOf(listeners);
    this.opensAfterTls = opensAfterTls;
  }

  /** The events of a server's settings; {@code null} if it has no listener. */
  public static ConnectionEvents of(ServerConfig config) {
    List<ConnectionListener> listeners = config.connectionListeners();
    return listeners.isEmpty() ? null : new ConnectionEvents(listeners, config.tls() != null);
  }

  /** Whether a connection opens when its TLS handshake completes rather than at accept. */
  boolean opensAfterTls() {
    return opensAfterTls;
  }

  /** The server is about to bind. */
  public void serverStarting(ServerConfig config) {
    for (ConnectionListener l : listeners) {
      try {
        l.onServerStart(config);
      } catch (Throwable t) {
        failed(l, "onServerStart", null, t);
      }
    }
  }

  /**
   * A call is about to run on the current thread on {@code connection}'s connection.
   *
   * @param connection the connection's registration; {@code null} (a connection outside a server's
   *     registry) or not yet opened: nothing is called
   */
  public void beforeCall(RegisteredConnection<?> connection) {
    ConnectionInfo info = connection == null ? null : connection.info();
    if (info == null) {
      return;
    }
    for (ConnectionListener l : listeners) {
      try {
        l.beforeCall(info);
      } catch (Throwable t) {
        failed(l, "beforeCall", info, t);
      }
    }
  }

  void opened(ConnectionInfo info) {
    for (ConnectionListener l : listeners) {
      try {
        l.onOpen(info);
      } catch (Throwable t) {
        failed(l, "onOpen", info, t);
      }
    }
  }

  void closed(ConnectionInfo info, CloseCause cause) {
    for (ConnectionListener l : listeners) {
      try {
        l.onClose(info, cause);
      } catch (Throwable t) {
        failed(l, "onClose", info, t);
      }
    }
  }

  void refused(ConnectionInfo info, CloseCause cause) {
    for (ConnectionListener l : listeners) {
      try {
        l.onRefused(info, cause);
      } catch (Throwable t) {
        failed(l, "onRefused", info, t);
      }
    }
  }

  private void failed(ConnectionListener l, String method, ConnectionInfo info, Throwable t) {
    if (t instanceof VirtualMachineError) {
      throw (VirtualMachineError) t; // out of memory, say: nothing a log line can absorb
    }
    long n = failures.record();
    if (n != 0) { // the 1st, 2nd, 4th, 8th ...: a listener failing on every call is not a flood
      log.warn(
          "Connection listener {} threw in {} for {}; ignored ({} listener failures so far)",
          l,
          method,
          info != null ? info : "the server",
          n,
          t);
    }
  }
}
