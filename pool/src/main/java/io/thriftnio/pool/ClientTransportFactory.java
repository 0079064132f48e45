package io.thriftnio.pool;

import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.core.util.internal.Checks;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;

/**
 * Opens the transport of one pooled synchronous connection. The result must be open and speak what
 * the server speaks (framed: every message one {@code TFramedTransport} frame; or unframed, for a
 * server that accepts it), and should carry a read timeout: a pooled call that waits forever holds
 * its connection forever.
 *
 * <p>Any failure here is a connect failure: no request can have been written, so the pool marks the
 * endpoint down and may retry the borrow on another endpoint. Implementations throw {@link
 * TTransportException}s that name the endpoint.
 *
 * <p>The stock libthrift sockets are {@link #stock(ClientOptions)}, TLS included; this library's
 * Netty and Grizzly synchronous transports plug in through {@link #of(ClientIo, ClientOptions)}:
 *
 * <pre>{@code
 * ClientTransportFactory netty =
 *     ClientTransportFactory.of(nettyResources, ClientOptions.builder().tls(clientTls).build());
 * }</pre>
 *
 * <p>For an unframed server ({@code TServerSocket} without framing, a Python or HBase Thrift
 * server), use {@link #stock(ClientOptions)} or {@link #of} with {@code
 * ClientOptions.builder().wireKind(WireKind.UNFRAMED)}.
 */
@FunctionalInterface
public interface ClientTransportFactory {

  /**
   * Opens a connection.
   *
   * @param endpoint where to connect
   * @return an open transport, framed or unframed as the server expects
   * @throws TTransportException if the connection cannot be opened
   */
  TTransport open(InetSocketAddress endpoint) throws TTransportException;

  /**
   * The sync transport of one of this library's transports: {@code
   * resources.openTransport(endpoint, options)}. The same line serves Netty and Grizzly; only the
   * resources differ.
   *
   * @param resources the transport's client resources; the pool does not close them
   * @param options each connection's settings (timeouts, frame limit, TLS)
   * @return the factory
   */
  static ClientTransportFactory of(ClientIo resources, ClientOptions options) {
    Checks.notNull("resources", resources);
    Checks.notNull("options", options);
    final class OfIo implements ClientTransportFactory, SocketTransports.WithOptions {
      @Override
      public TTransport open(InetSocketAddress endpoint) throws TTransportException {
        return resources.openTransport(endpoint, options);
      }

      @Override
      public ClientOptions options() {
        return options;
      }

      @Override
      public String toString() {
        return resources + " with " + options;
      }
    }
    return new OfIo();
  }

  /**
   * Stock libthrift sockets with {@code options}' connect timeout, call timeout (as the socket's
   * read timeout), frame limit and TLS: a {@code TSocket} in a {@code TFramedTransport} for {@link
   * WireKind#FRAMED}, a bare {@code TSocket} for {@link WireKind#UNFRAMED} (libthrift's {@code
   * TServerSocket} servers without framing, Python's and HBase's Thrift servers), and for TLS a JDK
   * {@code SSLSocket} on the connected socket with the protocols, cipher suites, client
   * certificate, hostname verification (on by default) and SNI of {@link ClientOptions#tls()},
   * framed. The socket has {@code TCP_NODELAY} and keep-alive set and is backed by a {@code
   * SocketChannel}, so the pool can see without blocking whether the peer has closed an idle plain
   * connection. This is what {@link ThriftClientPool} opens unless told otherwise.
   *
   * <p>A TLS handshake completes in {@link #open} within {@link ClientTls#handshakeTimeout()}; a
   * failed or timed-out handshake is a connect failure naming the endpoint. The pool cannot look at
   * an idle TLS connection without reading TLS records, so a connection the server closed while
   * idle is found on its next use: set {@link PoolBuilder#idleTimeout(Duration)} below the server's
   * idle timeout to keep that rare.
   *
   * @param options the connection settings; not {@code HTTP}, not unframed with TLS, no
   *     interceptors (a pool's go to its builder): {@link #of(ClientIo, ClientOptions)} opens those
   * @return the factory
   * @throws SettingException for a setting the stock sockets cannot honour, naming it
   * @throws IllegalStateException if the TLS settings ask for the OPENSSL provider
   */
  static ClientTransportFactory stock(ClientOptions options) {
    Checks.notNull("options", options);
    boolean interceptors = !options.interceptors().isEmpty();
    Object refused =
        options.wireKind() == WireKind.HTTP || options.wireKind() == WireKind.HEADER
            ? options.wireKind()
            : options.wireKind() == WireKind.UNFRAMED && options.tls().isPresent()
                ? "UNFRAMED with tls"
                : interceptors ? options.interceptors() : null;
    if (refused != null) {
      throw new SettingException(
          refused == options.interceptors() ? "interceptors" : "wireKind",
          refused,
          "FRAMED, UNFRAMED or FRAMED with tls, and no interceptors, for the stock sockets;"
              + " ClientTransportFactory.of(io, options) opens this library's transports, which"
              + " speak the rest; a pool's interceptors go to its builder");
    }
    // Both keep the options: the pool reads the per-call settings from them (argumentHeaders).
    return options.tls().isPresent()
        ? new SocketTransports.FramedTlsFactory(options)
        : new SocketTransports.FramedSocketFactory(options);
  }
}
