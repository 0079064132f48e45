package io.thriftnio.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.netty.util.concurrent.Future;
import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.internal.client.ClientConnections;
import io.thriftnio.core.internal.client.ClientErrors;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.core.util.internal.Checks;
import io.thriftnio.netty.internal.EventLoops;
import io.thriftnio.netty.internal.IoThreadFactory;
import io.thriftnio.netty.internal.NettyTls;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;

/**
 * Netty's {@link ClientIo}: the event loops that client channels and TLS connections run on. One
 * instance serves any number of connections; create one per application rather than one per
 * connection.
 *
 * <pre>{@code
 * try (ClientIo resources = NettyClientIo.create()) {
 *   TTransport transport = resources.openTransport(address, ClientOptions.defaults());
 *   ThriftChannel channel = resources.openChannel(address, ClientOptions.defaults());
 * }
 * }</pre>
 *
 * <p>A sync transport over plain TCP is core's blocking socket transport, driven by the caller's
 * thread: it costs what {@code TSocket} + {@code TFramedTransport} cost and uses no event loop.
 * Over TLS it runs Netty's {@code SslHandler} (JDK or OpenSSL provider) on an event loop.
 *
 * <p>Threads are named {@code thrift-nio-netty-client-N} and are daemon threads. {@link #close()}
 * closes every connection opened here, then shuts the event loops down if this instance owns them;
 * it is idempotent.
 */
public final class NettyClientIo implements ClientIo {

  private static final long SHUTDOWN_GRACE_MILLIS = 3000;

  // Held, not extended: the public class has no internal superclass.
  private final ClientConnections connections = new ClientConnections(new Io());

  private final EventLoopGroup group;
  private final IoTransport transport;
  private final boolean owned;
  private final boolean shared;

  private NettyClientIo(
      EventLoopGroup group, IoTransport transport, boolean owned, boolean shared) {
    this.group = group;
    this.transport = transport;
    this.owned = owned;
    this.shared = shared;
  }

  /** Event loops on {@link NettyTransportType#AUTO}, one per available processor. */
  public static NettyClientIo create() {
    return create(Runtime.getRuntime().availableProcessors(), NettyTransportType.AUTO);
  }

  /**
   * Event loops on {@link NettyTransportType#AUTO}.
   *
   * @param ioThreads the number of event loops; must be positive
   */
  public static NettyClientIo create(int ioThreads) {
    return create(ioThreads, NettyTransportType.AUTO);
  }

  /**
   * Event loops of the given transport, owned by the instance.
   *
   * @param ioThreads the number of event loops; must be positive
   * @param ioTransport the IO transport
   * @throws IllegalStateException if a native transport is asked for and not available
   */
  public static NettyClientIo create(int ioThreads, NettyTransportType ioTransport) {
    Checks.positive("ioThreads", ioThreads);
    IoTransport io = IoTransport.resolve(Checks.notNull("ioTransport", ioTransport));
    EventLoopGroup group =
        new MultiThreadIoEventLoopGroup(
            ioThreads, new IoThreadFactory("thrift-nio-netty-client", true), io.handlerFactory());
    return new NettyClientIo(group, io, true, false);
  }

  /**
   * The caller's event loops. {@link #close()} closes the connections opened here and refuses new
   * ones either way; it shuts the group down only if {@code shutdownOnClose}.
   *
   * @param group a {@code MultiThreadIoEventLoopGroup} with the NIO, epoll or io_uring IO handler
   * @param shutdownOnClose whether {@link #close()} shuts the group down
   */
  public static NettyClientIo wrap(EventLoopGroup group, boolean shutdownOnClose) {
    Checks.notNull("group", group);
    return new NettyClientIo(group, IoTransport.of(group), shutdownOnClose, false);
  }

  /**
   * A process-wide instance, created on first use with {@link NettyTransportType#AUTO} and two
   * event loops (daemon threads). It lives as long as the process: its {@link #close()} throws
   * {@link UnsupportedOperationException} rather than close what other code shares.
   */
  public static NettyClientIo shared() {
    return Shared.INSTANCE;
  }

  private static final class Shared {
    static final NettyClientIo INSTANCE;

    static {
      IoTransport io = IoTransport.resolve(NettyTransportType.AUTO);
      INSTANCE =
          new NettyClientIo(
              new MultiThreadIoEventLoopGroup(
                  2,
                  new IoThreadFactory("thrift-nio-netty-client-shared", true),
                  io.handlerFactory()),
              io,
              false,
              true);
    }
  }

  /** The event loops. */
  public EventLoopGroup eventLoopGroup() {
    return group;
  }

  /** The IO transport in use, never {@code AUTO}. */
  public NettyTransportType ioTransport() {
    return transport.type();
  }

  /**
   * Opens a connection whose pipeline is an optional {@link SslHandler}, then what {@code client}
   * adds (a {@code ThriftFrameDecoder} over its wire, and its own handler: it writes each request
   * behind its head itself); returns once connected and, with TLS, once the handshake has
   * completed.
   */
  private Channel connect(
      InetSocketAddress address, ClientOptions options, BiConsumer<ChannelPipeline, Integer> client)
      throws TTransportException {
    connections.ensureOpen(address);
    ClientTls tls = options.tls().orElse(null);
    SslContext sslContext = tls != null ? NettyTls.clientContext(tls) : null;
    int maxFrameSize = options.maxFrameSize();
    long timeoutMillis = Math.max(1, options.connectTimeout().toMillis());
    // Kept here, not looked up in the pipeline later: a peer that closes at once (a plain-text
    // server answering a ClientHello) empties the pipeline before connect() returns.
    AtomicReference<SslHandler> sslHandler = new AtomicReference<>();
    Bootstrap bootstrap =
        new Bootstrap()
            .group(group)
            .channel(transport.socketChannel())
            .option(ChannelOption.TCP_NODELAY, true)
            .option(
                ChannelOption.CONNECT_TIMEOUT_MILLIS,
                (int) Math.min(Integer.MAX_VALUE, timeoutMillis))
            .handler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    if (tls != null) {
                      sslHandler.set(NettyTls.clientHandler(sslContext, tls, address, ch.alloc()));
                      ch.pipeline().addLast("tls", sslHandler.get());
                    }
                    client.accept(ch.pipeline(), maxFrameSize);
                  }
                });
    ChannelFuture connected;
    try {
      connected = bootstrap.connect(address);
    } catch (RuntimeException e) { // the event loops were shut down
      throw ClientErrors.connectFailed(address, e);
    }
    try {
      // The connect timeout fails the future; the extra second only guards against a lost wakeup.
      if (!connected.await(timeoutMillis + 1000, TimeUnit.MILLISECONDS)) {
        connected.channel().close();
        throw ClientErrors.connectTimedOut(address, timeoutMillis);
      }
    } catch (InterruptedException e) {
      connected.channel().close();
      Thread.currentThread().interrupt();
      throw ClientErrors.connectInterrupted(address, e);
    }
    if (!connected.isSuccess()) {
      Throwable cause = connected.cause();
      throw cause instanceof ConnectTimeoutException
          ? ClientErrors.connectTimedOut(address, timeoutMillis)
          : ClientErrors.connectFailed(address, cause);
    }
    return tls != null
        ? awaitHandshake(connected.channel(), sslHandler.get(), address, tls)
        : connected.channel();
  }

  private static Channel awaitHandshake(
      Channel ch, SslHandler sslHandler, InetSocketAddress address, ClientTls tls)
      throws TTransportException {
    Future<Channel> handshake = sslHandler.handshakeFuture();
    long timeoutMillis = tls.handshakeTimeout().toMillis();
    try {
      // The handler's own timeout fails the future; the extra second guards against a lost wakeup.
      if (!handshake.await(timeoutMillis + 1000, TimeUnit.MILLISECONDS)) {
        ch.close();
        throw ClientErrors.handshakeTimedOut(address, timeoutMillis);
      }
    } catch (InterruptedException e) {
      ch.close();
      Thread.currentThread().interrupt();
      throw ClientErrors.connectInterrupted(address, e);
    }
    if (!handshake.isSuccess()) {
      ch.close();
      Throwable cause = handshake.cause();
      throw cause instanceof SslHandshakeTimeoutException
          ? ClientErrors.handshakeTimedOut(address, timeoutMillis)
          : ClientErrors.handshakeFailed(address, cause);
    }
    return ch;
  }

  /**
   * Closes every connection opened here, then shuts the event loops down if this instance owns
   * them, waiting a few seconds at most (called on one of those event loops, it starts the shutdown
   * and returns without waiting). Idempotent.
   *
   * @throws UnsupportedOperationException on {@link #shared()}, which lives as long as the process
   */
  @Override
  public void close() {
    if (shared) {
      throw new UnsupportedOperationException(
          "NettyClientIo.shared() lives as long as the process and cannot be closed;"
              + " close the connections it opened, or use create() for resources you can close");
    }
    connections.close();
  }

  @Override
  public String toString() {
    return "NettyClientIo{"
        + transport.type()
        + ", owned="
        + owned
        + (isClosed() ? ", closed}" : "}");
  }

  @Override
  public TTransport openTransport(InetSocketAddress address, ClientOptions options)
      throws TTransportException {
    return connections.openTransport(address, options);
  }

  @Override
  public ThriftChannel openChannel(InetSocketAddress address, ClientOptions options)
      throws TTransportException {
    return connections.openChannel(address, options);
  }

  /** Whether {@link #close()} has been called. */
  public boolean isClosed() {
    return connections.isClosed();
  }

  /** Connections opened here and not yet closed. */
  public int openConnections() {
    return connections.openConnections();
  }

  /** The IO part of what every transport's resources do alike. */
  private final class Io implements ClientConnections.Adapter {
    @Override
    public TTransport connectTlsTransport(
        InetSocketAddress address, ClientOptions options, Runnable onClose)
        throws TTransportException {
      TNettyTransport t = new TNettyTransport(address, options, onClose);
      t.connected(connect(address, options, t::addTo));
      return t;
    }

    @Override
    public ThriftChannel connectChannel(
        InetSocketAddress address, ClientOptions options, Runnable onClose)
        throws TTransportException {
      NettyThriftChannel channel = new NettyThriftChannel(address, options, group, onClose);
      connect(address, options, channel::addTo);
      return channel;
    }

    @Override
    public void release() {
      if (owned) {
        EventLoops.shutdown(group, SHUTDOWN_GRACE_MILLIS);
      }
    }
  }
}
