package io.thriftnio.pool;

import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.internal.JdkTls;
import io.thriftnio.core.internal.client.BlockingSockets;
import io.thriftnio.core.internal.client.ClientErrors;
import io.thriftnio.core.internal.client.DeadlineSocket;
import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.tls.ClientTls;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.apache.thrift.transport.TNonblockingSocket;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.apache.thrift.transport.layered.TLayeredTransport;

/** Opening sockets and looking at them without blocking. */
final class SocketTransports {
  private SocketTransports() {}

  /**
   * The stock {@code TSocket} + {@code TFramedTransport} factory, or, unframed, the bare {@code
   * TSocket}.
   */
  public static final class FramedSocketFactory implements ClientTransportFactory, WithOptions {
    private final ClientOptions options;
    private final int connectTimeoutMillis;
    private final int readTimeoutMillis;
    private final int maxFrameSize;
    private final boolean framed;

    /**
     * The sockets of {@code options}: framed for {@link WireKind#FRAMED}, else bare (then {@code
     * maxFrameSize} bounds only the sizes a reply declares); kept for the pool's per-call settings
     * ({@link ClientOptions#argumentHeaders()}).
     */
    FramedSocketFactory(ClientOptions options) {
      this.options = options;
      this.connectTimeoutMillis = millis(options.connectTimeout());
      this.readTimeoutMillis = millis(options.callTimeout());
      this.maxFrameSize = options.maxFrameSize();
      this.framed = options.wireKind() == WireKind.FRAMED;
    }

    @Override
    public ClientOptions options() {
      return options;
    }

    @Override
    public TTransport open(InetSocketAddress endpoint) throws TTransportException {
      SocketChannel channel = connect(endpoint, connectTimeoutMillis);
      try {
        Socket socket = channel.socket();
        socket.setSoTimeout(readTimeoutMillis);
        TSocket bare =
            new DeadlineSocket(socket, endpoint, readTimeoutMillis, framed, maxFrameSize);
        bare.getConfiguration()
            .setMaxFrameSize(maxFrameSize); // bounds declared sizes, unframed too
        return framed ? new TFramedTransport(bare, maxFrameSize) : bare;
      } catch (IOException | TTransportException | RuntimeException e) {
        closeQuietly(channel);
        throw ClientErrors.connectFailed(endpoint, e);
      }
    }

    @Override
    public String toString() {
      return (framed ? "stock(FRAMED" : "stock(UNFRAMED")
          + ", connectTimeout="
          + connectTimeoutMillis
          + "ms, callTimeout="
          + readTimeoutMillis
          + (framed ? "ms, maxFrameSize=" + maxFrameSize + ")" : "ms)");
    }
  }

  /** {@code TSocket} over a JDK {@code SSLSocket}, in a {@code TFramedTransport}. */
  public static final class FramedTlsFactory implements ClientTransportFactory, WithOptions {
    private final ClientOptions options;
    private final int connectTimeoutMillis;
    private final int readTimeoutMillis;
    private final ClientTls tls;
    private final SSLContext context;
    private final int maxFrameSize;

    /** The TLS sockets of {@code options}, whose {@link ClientOptions#tls()} is present. */
    FramedTlsFactory(ClientOptions options) {
      this.options = options;
      this.connectTimeoutMillis = millis(options.connectTimeout());
      this.readTimeoutMillis = millis(options.callTimeout());
      this.tls = options.tls().orElseThrow();
      this.context = JdkTls.clientContext(tls, "ClientTransportFactory.stock");
      this.maxFrameSize = options.maxFrameSize();
    }

    @Override
    public ClientOptions options() {
      return options;
    }

    @Override
    public TTransport open(InetSocketAddress endpoint) throws TTransportException {
      SocketChannel channel = connect(endpoint, connectTimeoutMillis);
      SSLSocket ssl =
          BlockingSockets.handshake(
              channel.socket(),
              context,
              tls,
              endpoint,
              Names.endpoint(endpoint),
              Duration.ofMillis(readTimeoutMillis));
      try {
        return new TFramedTransport(
            new DeadlineSocket(ssl, endpoint, readTimeoutMillis, true, maxFrameSize), maxFrameSize);
      } catch (TTransportException | RuntimeException e) {
        BlockingSockets.closeQuietly(ssl);
        throw e;
      }
    }

    @Override
    public String toString() {
      return "stock(FRAMED, tls, connectTimeout="
          + connectTimeoutMillis
          + "ms, callTimeout="
          + readTimeoutMillis
          + "ms, maxFrameSize="
          + maxFrameSize
          + ", "
          + tls
          + ")";
    }
  }

  /**
   * Opens a blocking {@code SocketChannel} to {@code endpoint} within the timeout. A channel
   * (rather than a plain {@code Socket}) lets {@link #peerSilent} look at an idle connection
   * without blocking. Fails as this library's own transports do: {@code NOT_OPEN} naming the cause
   * ({@code Connection refused}) or {@code TIMED_OUT} naming the connect timeout.
   */
  public static SocketChannel connect(InetSocketAddress endpoint, int connectTimeoutMillis)
      throws TTransportException {
    SocketChannel channel;
    try {
      channel = SocketChannel.open();
    } catch (IOException e) {
      throw ClientErrors.connectFailed(endpoint, e);
    }
    InetSocketAddress target =
        endpoint.isUnresolved()
            ? new InetSocketAddress(endpoint.getHostString(), endpoint.getPort())
            : endpoint;
    // No read timeout yet: each factory sets its own once the socket is connected.
    BlockingSockets.connect(
        channel.socket(), target, Duration.ofMillis(connectTimeoutMillis), Duration.ZERO);
    try {
      channel.socket().setKeepAlive(true);
    } catch (IOException e) {
      closeQuietly(channel);
      throw ClientErrors.connectFailed(target, e);
    }
    return channel;
  }

  /**
   * Whether a layer of {@code transport} holds bytes read from the wire but not consumed: the rest
   * of a reply the last call did not read. Such a connection would hand them to the next call.
   */
  public static boolean hasUnreadBytes(TTransport transport) {
    TTransport t = transport;
    while (t != null) {
      if (t.getBytesRemainingInBuffer() > 0) {
        return true;
      }
      t = t instanceof TLayeredTransport ? ((TLayeredTransport) t).getInnerTransport() : null;
    }
    return false;
  }

  /**
   * Whether an idle connection is quiet: the peer has neither sent unsolicited bytes nor closed it.
   * Looks without blocking, on transports backed by a {@code SocketChannel}; others are assumed
   * quiet. Never throws.
   */
  public static boolean peerSilent(TTransport transport) {
    TTransport t = transport;
    while (t instanceof TLayeredTransport) {
      t = ((TLayeredTransport) t).getInnerTransport();
    }
    if (t instanceof TSocket) {
      Socket socket = ((TSocket) t).getSocket();
      if (socket.isClosed() || socket.isInputShutdown()) {
        return false;
      }
      if (socket instanceof SSLSocket) {
        return tlsPeerSilent((SSLSocket) socket);
      }
      SocketChannel channel = socket.getChannel();
      return channel == null || peerSilent(channel);
    }
    if (t instanceof TNonblockingSocket) {
      return peerSilent(((TNonblockingSocket) t).getSocketChannel());
    }
    return true;
  }

  /**
   * Reads at most one byte without blocking: 0 bytes means quiet; -1 (the peer closed, say after a
   * server restart) or a byte (a stray reply) means the connection must not be reused. The byte, if
   * any, is lost, which is harmless since the connection is then destroyed.
   */
  public static boolean peerSilent(SocketChannel channel) {
    return BlockingSockets.quiet(channel);
  }

  /**
   * {@link #peerSilent(SocketChannel)} for TLS. Raw bytes may be the server's post-handshake
   * messages (a TLS 1.3 session ticket, sent just after the handshake), which are no reply: read
   * raw, they failed the validation of fresh TLS connections at random and cost a byte of the
   * record stream. So raw bytes are counted without being consumed, and only when there are some
   * does the TLS layer read, for at most 1 ms: a handshake message is consumed and leaves it quiet;
   * data, a close_notify or the end of the stream do not.
   */
  private static boolean tlsPeerSilent(SSLSocket ssl) {
    try {
      if (ssl.getInputStream().available() > 0) {
        return false; // decrypted bytes nobody asked for
      }
      SocketChannel raw = ssl.getChannel();
      if (raw == null || raw.socket().getInputStream().available() == 0) {
        return true;
      }
      int timeout = ssl.getSoTimeout();
      ssl.setSoTimeout(1);
      try {
        ssl.getInputStream().read();
        return false; // a byte of data, or the end of the stream
      } catch (SocketTimeoutException quiet) {
        return true; // only records without data, such as a session ticket
      } finally {
        ssl.setSoTimeout(timeout);
      }
    } catch (IOException | RuntimeException e) {
      return false; // a connection we cannot even look at is not one to lend
    }
  }

  public static void closeQuietly(SocketChannel channel) {
    BlockingSockets.closeQuietly(channel);
  }

  static int millis(Duration d) {
    return BlockingSockets.millis(d);
  }

  /**
   * What a sync pool opens its connections with: the caller's factory, this library's transports on
   * {@code io}, or stock sockets, from the options.
   *
   * @throws IllegalStateException for settings the chosen connections would ignore
   */
  /**
   * A transport factory made with options ({@code ClientTransportFactory.of}): the pool reads the
   * per-call settings it honours from them ({@link ClientOptions#argumentHeaders()}).
   */
  interface WithOptions {
    ClientOptions options();
  }

  /**
   * Whether a sync pool's calls send their headers in the arguments: as the options that made its
   * transport factory say, else as the pool's options say.
   */
  static boolean argumentHeaders(ClientTransportFactory factory, ClientOptions poolOptions) {
    return factory instanceof WithOptions withOptions
        ? withOptions.options().argumentHeaders()
        : poolOptions.argumentHeaders();
  }

  static ClientTransportFactory forSyncPool(
      ClientTransportFactory custom, ClientIo io, ClientOptions options, boolean optionsGiven) {
    if (custom != null && (io != null || optionsGiven)) {
      throw new SettingException(
          io != null ? "io" : "options",
          io != null ? io : options,
          "unset with transportFactory "
              + custom
              + ", which opens the connections and would ignore it");
    }
    if (!options.interceptors().isEmpty()) {
      throw new SettingException(
          "options.interceptors",
          options.interceptors(),
          "none: a sync transport does not see where a message begins; give them to this"
              + " builder's interceptors(..)");
    }
    if (custom != null) {
      return custom;
    }
    return io != null
        ? ClientTransportFactory.of(io, options)
        : ClientTransportFactory.stock(options);
  }
}
