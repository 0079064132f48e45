package io.thriftnio.pool;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ClientResources;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.core.util.internal.Checks;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.apache.thrift.TConfiguration;
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
 * <p>The stock implementations are {@link #framedSocket(Duration, Duration)} and, for TLS, {@link
 * #framedTls(Duration, Duration, ClientTls)}; this library's Netty and Grizzly synchronous
 * transports plug in through {@link #of(ClientResources, ClientOptions)}, TLS included:
 *
 * <pre>{@code
 * ClientTransportFactory netty =
 *     ClientTransportFactory.of(nettyResources, ClientOptions.builder().tls(clientTls).build());
 * }</pre>
 *
 * <p>For an unframed server ({@code TServerSocket} without framing, a Python or HBase Thrift
 * server), use {@link #unframedSocket(Duration, Duration)}, or {@link #of} with {@code
 * ClientOptions.builder().transport(WireTransport.UNFRAMED)}.
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
  static ClientTransportFactory of(ClientResources resources, ClientOptions options) {
    Checks.notNull("resources", resources);
    Checks.notNull("options", options);
    return new ClientTransportFactory() {
      @Override
      public TTransport open(InetSocketAddress endpoint) throws TTransportException {
        return resources.openTransport(endpoint, options);
      }

      @Override
      public String toString() {
        return resources + " with " + options;
      }
    };
  }

  /**
   * Stock libthrift: a {@code TSocket} wrapped in a {@code TFramedTransport}, with libthrift's
   * default maximum frame size ({@value TConfiguration#DEFAULT_MAX_FRAME_SIZE} bytes). The socket
   * has {@code TCP_NODELAY} and keep-alive set, and is backed by a {@code SocketChannel}, so the
   * pool can see without blocking whether the peer has closed an idle connection.
   *
   * @param connectTimeout how long a connect may take; must be positive
   * @param readTimeout how long a read may block (the longest a call may wait for its reply); must
   *     be positive
   * @return the factory
   */
  static ClientTransportFactory framedSocket(Duration connectTimeout, Duration readTimeout) {
    return framedSocket(connectTimeout, readTimeout, TConfiguration.DEFAULT_MAX_FRAME_SIZE);
  }

  /**
   * Like {@link #framedSocket(Duration, Duration)}, with a maximum frame size: a reply frame longer
   * than this fails the call and closes the connection.
   *
   * @param connectTimeout how long a connect may take; must be positive
   * @param readTimeout how long a read may block; must be positive
   * @param maxFrameSize the largest reply frame accepted, in bytes; must be positive
   * @return the factory
   */
  static ClientTransportFactory framedSocket(
      Duration connectTimeout, Duration readTimeout, int maxFrameSize) {
    Checks.positive("connectTimeout", connectTimeout);
    Checks.positive("readTimeout", readTimeout);
    Checks.positive("maxFrameSize", maxFrameSize);
    return new SocketTransports.FramedSocketFactory(connectTimeout, readTimeout, maxFrameSize);
  }

  /**
   * Stock libthrift without framing: a bare {@code TSocket}, for servers that speak unframed
   * (libthrift's {@code TServerSocket} servers without a framed transport factory, Python's and
   * HBase's Thrift servers, or this library's servers with {@code WireTransport.UNFRAMED}). The
   * socket is set up as {@link #framedSocket(Duration, Duration)}'s is, so the pool sees an idle
   * connection the peer closed in the same way. Reply size is bounded by libthrift's own message
   * size limit ({@code TConfiguration.DEFAULT_MAX_MESSAGE_SIZE}); for replies bounded by {@code
   * maxFrameSize} and walked before they are read, use {@link #of} with {@code
   * ClientOptions.transport(WireTransport.UNFRAMED)}.
   *
   * @param connectTimeout how long a connect may take; must be positive
   * @param readTimeout how long a read may block (the longest a call may wait for its reply); must
   *     be positive
   * @return the factory
   */
  static ClientTransportFactory unframedSocket(Duration connectTimeout, Duration readTimeout) {
    Checks.positive("connectTimeout", connectTimeout);
    Checks.positive("readTimeout", readTimeout);
    return new SocketTransports.FramedSocketFactory(
        connectTimeout, readTimeout, TConfiguration.DEFAULT_MAX_FRAME_SIZE, false);
  }

  /**
   * Like {@link #framedSocket(Duration, Duration)}, over TLS: a JDK {@code SSLSocket} layered on
   * the connected socket, with the protocols, cipher suites, client certificate, hostname
   * verification (on by default) and SNI of {@code tls}, wrapped in a {@code TFramedTransport}. The
   * handshake completes in {@link #open} within {@link ClientTls#handshakeTimeout()}; a failed or
   * timed-out handshake is a connect failure ({@code NOT_OPEN} or {@code TIMED_OUT}) naming the
   * endpoint.
   *
   * <p>The pool cannot look at an idle TLS connection without reading TLS records (a TLS 1.3 server
   * sends session tickets after the handshake), so a connection the server closed while idle is
   * found on its next use rather than at borrow time. Set {@link
   * IdleConnectionsConfig.Builder#timeout(Duration)} below the server's idle timeout to keep that
   * rare.
   *
   * @param connectTimeout how long the TCP connect may take; must be positive
   * @param readTimeout how long a read may block; must be positive
   * @param tls the TLS settings; only the {@code JDK} provider is supported
   * @return the factory
   * @throws IllegalStateException if {@code tls} asks for the OPENSSL provider
   */
  static ClientTransportFactory framedTls(
      Duration connectTimeout, Duration readTimeout, ClientTls tls) {
    return framedTls(connectTimeout, readTimeout, tls, TConfiguration.DEFAULT_MAX_FRAME_SIZE);
  }

  /**
   * Like {@link #framedTls(Duration, Duration, ClientTls)}, with a maximum frame size.
   *
   * @param connectTimeout how long the TCP connect may take; must be positive
   * @param readTimeout how long a read may block; must be positive
   * @param tls the TLS settings; only the {@code JDK} provider is supported
   * @param maxFrameSize the largest reply frame accepted, in bytes; must be positive
   * @return the factory
   * @throws IllegalStateException if {@code tls} asks for the OPENSSL provider
   */
  static ClientTransportFactory framedTls(
      Duration connectTimeout, Duration readTimeout, ClientTls tls, int maxFrameSize) {
    Checks.positive("connectTimeout", connectTimeout);
    Checks.positive("readTimeout", readTimeout);
    Checks.notNull("tls", tls);
    Checks.positive("maxFrameSize", maxFrameSize);
    return new SocketTransports.FramedTlsFactory(connectTimeout, readTimeout, tls, maxFrameSize);
  }
}
