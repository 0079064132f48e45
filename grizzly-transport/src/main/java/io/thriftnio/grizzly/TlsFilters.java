package io.thriftnio.grizzly;

import io.thriftnio.core.internal.JdkTls;
import io.thriftnio.core.internal.server.ConnectionHandle;
import io.thriftnio.core.internal.server.ConnectionRegistry;
import io.thriftnio.core.internal.server.RegisteredConnection;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.core.tls.ServerTls;
import java.net.InetSocketAddress;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.attributes.Attribute;
import org.glassfish.grizzly.ssl.SSLBaseFilter;
import org.glassfish.grizzly.ssl.SSLEngineConfigurator;
import org.glassfish.grizzly.ssl.SSLFilter;
import org.glassfish.grizzly.ssl.SSLUtils;

/**
 * Grizzly {@link SSLFilter}s from the core TLS settings. The engines are made by {@link JdkTls}
 * rather than by {@link SSLEngineConfigurator}'s own settings, whose {@code setSSLParameters}
 * ignores its argument in Grizzly 4.0.
 *
 * <p>Grizzly's own handshake timeout blocks a thread on a synchronous read and starts only with the
 * first bytes, so it cannot close a client that never speaks: the server's timeout sweep uses
 * {@link #handshaking} instead, and clients wait on their handshake future.
 */
final class TlsFilters {

  /** Set once the handshake of a server connection has completed. */
  private static final Attribute<Boolean> HANDSHAKEN =
      Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute("thrift-nio.tls-handshaken");

  private TlsFilters() {}

  /**
   * The server filter; handshake failures are counted and logged by the server's {@code registry}
   * ({@link ConnectionRegistry#tlsFailed}), and a completed handshake notes the peer's identity.
   */
  static SSLFilter server(ServerTls tls, ConnectionRegistry<ConnectionHandle> registry) {
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
    SSLFilter filter =
        new SSLFilter(engines, new SSLEngineConfigurator(context, true, false, false));
    filter.addHandshakeListener(
        new SSLBaseFilter.HandshakeListener() {
          @Override
          public void onStart(Connection<?> connection) {}

          @Override
          public void onComplete(Connection<?> connection) {
            HANDSHAKEN.set(connection, Boolean.TRUE);
            RegisteredConnection<ConnectionHandle> r = ConnectionGuardFilter.registered(connection);
            SSLEngine engine = SSLUtils.getSSLEngine(connection);
            if (r != null && engine != null) {
              r.tlsEstablished(engine.getSession());
            }
          }

          @Override
          public void onFailure(Connection<?> connection, Throwable t) {
            RegisteredConnection<ConnectionHandle> r = ConnectionGuardFilter.registered(connection);
            if (r != null) {
              registry.tlsFailed(r, JdkTls.describeServerFailure(t)); // counted once; closes it
            } else {
              connection.closeSilently(); // never admitted: refused and closing already
            }
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

  /** A client filter for {@link GrizzlyClientIo}; engines come per connection. */
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
