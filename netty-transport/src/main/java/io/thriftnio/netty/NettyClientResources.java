package io.thriftnio.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.netty.util.concurrent.Future;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.core.internal.Checks;
import io.thriftnio.core.internal.JdkTls;
import io.thriftnio.netty.internal.EventLoops;
import io.thriftnio.netty.internal.IoThreadFactory;
import io.thriftnio.netty.internal.IoTransport;
import io.thriftnio.netty.internal.NettyTls;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.thrift.transport.TTransportException;

/**
 * The event loops that the clients of this package ({@link TNettyTransport}, {@link
 * NettyThriftChannel}) run on. One instance serves any number of connections; create one per
 * application (or use {@link #shared()}) rather than one per connection.
 *
 * <pre>{@code
 * try (NettyClientResources resources = NettyClientResources.create(2)) {
 *   TTransport transport = TNettyTransport.builder(address).resources(resources).open();
 *   ...
 * }
 * }</pre>
 *
 * <p>Threads are named {@code thrift-nio-netty-client-N} and are daemon threads. {@link #close()}
 * shuts the event loops down if this instance owns them, failing every connection still open on
 * them; it is idempotent.
 */
public final class NettyClientResources implements AutoCloseable {

  private static final long SHUTDOWN_GRACE_MILLIS = 3000;

  private final EventLoopGroup group;
  private final IoTransport transport;
  private final boolean owned;
  private final AtomicBoolean closed = new AtomicBoolean();

  private NettyClientResources(EventLoopGroup group, IoTransport transport, boolean owned) {
    this.group = group;
    this.transport = transport;
    this.owned = owned;
  }

  /** Event loops on {@link NettyTransportType#AUTO}, one per available processor. */
  public static NettyClientResources create() {
    return create(Runtime.getRuntime().availableProcessors(), NettyTransportType.AUTO);
  }

  /**
   * Event loops on {@link NettyTransportType#AUTO}.
   *
   * @param ioThreads the number of event loops; must be positive
   */
  public static NettyClientResources create(int ioThreads) {
    return create(ioThreads, NettyTransportType.AUTO);
  }

  /**
   * Event loops of the given transport, owned by the instance.
   *
   * @param ioThreads the number of event loops; must be positive
   * @param transport the IO transport
   * @throws IllegalStateException if a native transport is asked for and not available
   */
  public static NettyClientResources create(int ioThreads, NettyTransportType transport) {
    Checks.positive("ioThreads", ioThreads);
    IoTransport io = IoTransport.resolve(Checks.notNull("transport", transport));
    EventLoopGroup group =
        new MultiThreadIoEventLoopGroup(
            ioThreads, new IoThreadFactory("thrift-nio-netty-client", true), io.handlerFactory());
    return new NettyClientResources(group, io, true);
  }

  /**
   * The caller's event loops.
   *
   * @param group a {@code MultiThreadIoEventLoopGroup} with the NIO, epoll or io_uring IO handler
   * @param shutdownOnClose whether {@link #close()} shuts the group down
   */
  public static NettyClientResources wrap(EventLoopGroup group, boolean shutdownOnClose) {
    Checks.notNull("group", group);
    return new NettyClientResources(group, IoTransport.of(group), shutdownOnClose);
  }

  /**
   * A process-wide instance, created on first use with {@link NettyTransportType#AUTO} and two
   * event loops (daemon threads), used by clients built without {@code resources(...)}. Its {@link
   * #close()} does nothing.
   */
  public static NettyClientResources shared() {
    return Shared.INSTANCE;
  }

  private static final class Shared {
    static final NettyClientResources INSTANCE;

    static {
      IoTransport io = IoTransport.resolve(NettyTransportType.AUTO);
      INSTANCE =
          new NettyClientResources(
              new MultiThreadIoEventLoopGroup(
                  2,
                  new IoThreadFactory("thrift-nio-netty-client-shared", true),
                  io.handlerFactory()),
              io,
              false);
    }
  }

  /** The event loops. */
  public EventLoopGroup eventLoopGroup() {
    return group;
  }

  /** The IO transport in use, never {@code AUTO}. */
  public NettyTransportType transport() {
    return transport.type();
  }

  /**
   * Opens a connection whose pipeline is a {@link ThriftFrameDecoder}, a {@link ThriftFrameEncoder}
   * and {@code handler}.
   */
  Channel connect(
      InetSocketAddress address, Duration connectTimeout, int maxFrameSize, ChannelHandler handler)
      throws TTransportException {
    return connect(address, connectTimeout, maxFrameSize, handler, null, null);
  }

  /**
   * Like {@link #connect(InetSocketAddress, Duration, int, ChannelHandler)}, behind an {@link
   * SslHandler} when {@code tls} is not null; returns once the handshake has completed.
   */
  Channel connect(
      InetSocketAddress address,
      Duration connectTimeout,
      int maxFrameSize,
      ChannelHandler handler,
      ClientTls tls,
      SslContext sslContext)
      throws TTransportException {
    if (closed.get()) {
      throw new TTransportException(
          TTransportException.NOT_OPEN,
          "cannot connect to " + address + ": client resources closed");
    }
    long timeoutMillis = Math.max(1, connectTimeout.toMillis());
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
                new io.netty.channel.ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    if (tls != null) {
                      sslHandler.set(NettyTls.clientHandler(sslContext, tls, address, ch.alloc()));
                      ch.pipeline().addLast("tls", sslHandler.get());
                    }
                    ch.pipeline()
                        .addLast("thriftFrameDecoder", new ThriftFrameDecoder(maxFrameSize))
                        .addLast("thriftFrameEncoder", new ThriftFrameEncoder(maxFrameSize))
                        .addLast("thriftClientHandler", handler);
                  }
                });
    ChannelFuture connected;
    try {
      connected = bootstrap.connect(address);
    } catch (RuntimeException e) { // the event loops were shut down
      throw new TTransportException(
          TTransportException.NOT_OPEN, "cannot connect to " + address + ": " + e, e);
    }
    try {
      // The connect timeout fails the future; the extra second only guards against a lost wakeup.
      if (!connected.await(timeoutMillis + 1000, TimeUnit.MILLISECONDS)) {
        connected.channel().close();
        throw new TTransportException(
            TTransportException.TIMED_OUT,
            "cannot connect to "
                + address
                + ": no answer within connectTimeout "
                + timeoutMillis
                + " ms");
      }
    } catch (InterruptedException e) {
      connected.channel().close();
      Thread.currentThread().interrupt();
      throw new TTransportException(
          TTransportException.UNKNOWN, "interrupted while connecting to " + address, e);
    }
    if (!connected.isSuccess()) {
      Throwable cause = connected.cause();
      int type =
          cause instanceof io.netty.channel.ConnectTimeoutException
              ? TTransportException.TIMED_OUT
              : TTransportException.NOT_OPEN;
      throw new TTransportException(
          type, "cannot connect to " + address + ": " + cause.getMessage(), cause);
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
        throw new TTransportException(
            TTransportException.TIMED_OUT,
            "TLS handshake with " + address + " timed out after " + timeoutMillis + " ms");
      }
    } catch (InterruptedException e) {
      ch.close();
      Thread.currentThread().interrupt();
      throw new TTransportException(
          TTransportException.UNKNOWN, "interrupted during the TLS handshake with " + address, e);
    }
    if (!handshake.isSuccess()) {
      ch.close();
      Throwable cause = handshake.cause();
      throw new TTransportException(
          cause instanceof SslHandshakeTimeoutException
              ? TTransportException.TIMED_OUT
              : TTransportException.NOT_OPEN,
          "TLS handshake with " + address + " failed: " + JdkTls.describe(cause),
          cause);
    }
    return ch;
  }

  /**
   * Shuts the event loops down if this instance owns them, and waits a few seconds at most for them
   * to stop. Called on one of those event loops (from a channel future listener or a callback run
   * on the IO thread, say), it starts the shutdown and returns without waiting: the loop stops only
   * once the caller returns. Idempotent.
   */
  @Override
  public void close() {
    if (!owned || !closed.compareAndSet(false, true)) {
      return;
    }
    EventLoops.shutdown(group, SHUTDOWN_GRACE_MILLIS);
  }

  @Override
  public String toString() {
    return "NettyClientResources{" + transport.type() + ", owned=" + owned + '}';
  }
}
