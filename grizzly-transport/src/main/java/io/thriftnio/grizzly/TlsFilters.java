package io.thriftnio.grizzly;

import io.thriftnio.core.internal.JdkTls;
import io.thriftnio.core.internal.ServerCounters;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.core.tls.ServerTls;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.attributes.Attribute;
import org.glassfish.grizzly.ssl.SSLBaseFilter;
import org.glassfish.grizzly.ssl.SSLEngineConfigurator;
import org.glassfish.grizzly.ssl.SSLFilter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Grizzly {@link SSLFilter}s from the core TLS settings. The engines are made by {@link JdkTls}
 * rather than by {@link SSLEngineConfigurator}'s own settings, whose {@code setSSLParameters}
 * ignores its argument in Grizzly 4.0.
 *
 * <p>Grizzly's own handshake timeout blocks a thread on a synchronous read and starts only with
 * the first bytes, so it cannot close a client that never speaks: the server's timeout sweep uses
 * {@link #handshaking} instead, and clients wait on their handshake future.
 */
final class TlsFilters {

  private static final Logger log = LoggerFactory.getLogger(TlsFilters.class);

  /** Set once the handshake of a server connection has completed. */
  private static final Attribute<Boolean> HANDSHAKEN =
      Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute("thrift-nio.tls-handshaken");

  /** Set once a server connection's TLS failure has been counted: it is counted once. */
  private static final Attribute<Boolean> FAILED =
      Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute("thrift-nio.tls-failed");

  private TlsFilters() {}

  /**
   * The server filter; handshake failures are counted in {@code counters.tlsFailures}, and logged
   * at the powers of two of {@code failures}.
   */
  static SSLFilter server(ServerTls tls, ServerCounters counters, AtomicLong failures) {
    SSLContext context = JdkTls.serverContext(tls, "Grizzly");
    SSLEngineConfigurator engines =
        new SSLEngineConfigurator(context, false, false, false) {
          @Override
          public SSLEngine createSSLEngine(String peerHost, int peerPort) {
            return JdkTls.serverEngine(context, tls);
          }

          @Override
          public SSLEngine configure(SSLEngine engine) {
            return engine; // made complete by createSSLEngine
          }
        };
    SSLFilter filter = new SSLFilter(engines, new SSLEngineConfigurator(context, true, false, false));
    filter.addHandshakeListener(
        new SSLBaseFilter.HandshakeListener() {
          @Override
          public void onStart(Connection<?> connection) {}

          @Override
          public void onComplete(Connection<?> connection) {
            HANDSHAKEN.set(connection, Boolean.TRUE);
          }

          @Override
          public void onFailure(Connection<?> connection, Throwable t) {
            fail(connection, counters, failures, JdkTls.describe(t));
          }
        });
    return filter;
  }

  /**
   * Whether a server connection has not completed its handshake; the sweep closes it once the
   * handshake timeout has passed since accept.
   */
  static boolean handshaking(Connection<?> connection) {
    return !Boolean.TRUE.equals(HANDSHAKEN.get(connection));
  }

  /** Counts (once) and logs (at powers of two) a failed server handshake, and closes it. */
  static void fail(Connection<?> connection, ServerCounters counters, AtomicLong failures,
      String reason) {
    // The timeout sweep and the selector's handshake listener may fail the same connection at
    // once: the check and the mark are one step, so it counts once.
    synchronized (FAILED) {
      if (FAILED.isSet(connection)) {
        return;
      }
      FAILED.set(connection, Boolean.TRUE);
    }
    counters.tlsFailures.increment();
    long n = failures.incrementAndGet();
    if ((n & (n - 1)) == 0) { // the 1st, 2nd, 4th, 8th ...: a scan, not a flood of lines
      log.warn(
          "TLS handshake with {} failed: {} ({} TLS failures so far)",
          connection.getPeerAddress(),
          reason,
          n);
    }
    connection.closeSilently();
  }

  /** A client filter for {@link GrizzlyClientResources}; engines come per connection. */
  static SSLFilter client(SSLContext context) {
    SSLEngineConfigurator unused = new SSLEngineConfigurator(context, false, false, false);
    return new SSLFilter(unused, new SSLEngineConfigurator(context, true, false, false));
  }

  /** Makes the engine of one client connection to {@code peer}: SNI and host name checks. */
  static SSLEngineConfigurator clientEngines(
      SSLContext context, ClientTls tls, InetSocketAddress peer) {
    return new SSLEngineConfigurator(context, true, false, false) {
      @Override
      public SSLEngine createSSLEngine(String peerHost, int peerPort) {
        return JdkTls.clientEngine(context, tls, peer); // not Grizzly's idea of the host
      }

      @Override
      public SSLEngine configure(SSLEngine engine) {
        return engine;
      }
    };
  }
}
