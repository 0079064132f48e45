package io.thriftnio.netty;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.ssl.SslContext;
import io.thriftnio.core.ServerConfig;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.internal.server.ConnectionHandle;
import io.thriftnio.core.internal.server.ConnectionRegistry;
import io.thriftnio.core.internal.server.LifecycleServer;
import io.thriftnio.core.internal.server.RegisteredConnection;
import io.thriftnio.core.internal.server.ServerLifecycle;
import io.thriftnio.core.internal.server.TimeoutPolicy;
import io.thriftnio.core.util.internal.ServerCounters;
import io.thriftnio.core.wire.WireSettings;
import io.thriftnio.netty.internal.EventLoops;
import io.thriftnio.netty.internal.IoThreadFactory;
import io.thriftnio.netty.internal.NettyTls;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;

/**
 * The Netty side of a server built by {@link NettyThriftServer.Builder}: the event loops, the
 * listening channel and each accepted connection's pipeline, behind the {@link LifecycleServer}
 * every transport's server is. The lifecycle (start, drain, close) and the {@link ThriftServer}
 * contract are core's; this class only binds, accepts and releases.
 */
final class NettyServer implements ServerLifecycle.Transport {

  private final LifecycleServer server;
  private final ServerConfig config;
  private final ServerCounters counters;
  private final ConnectionRegistry<ConnectionHandle> registry;
  private final ServerLifecycle lifecycle;

  /** Time allowed for the event loops to stop once the drain is over. */
  private static final long SHUTDOWN_GRACE_MILLIS = 3000;

  private final IoTransport transport;
  private final EventLoopGroup suppliedGroup;
  private final boolean shutdownSuppliedGroup;
  private final ThriftFrameEncoder encoder;
  private final WireSettings wire;
  private final ByteBufAllocator allocator;
  private final SslContext sslContext;
  private final ThriftServerHandler.Settings settings;

  /** Set by {@link #bind()}, under the lifecycle's lock; read by {@link #release()}. */
  private volatile EventLoopGroup group;

  /**
   * Set by bind() and read by the close steps, each called by ServerLifecycle after it took its
   * lock, which orders them.
   */
  private Channel serverChannel;

  NettyServer(
      LifecycleServer server,
      IoTransport transport,
      EventLoopGroup suppliedGroup,
      boolean shutdown,
      ByteBufAllocator allocator,
      SslContext sslContext) {
    this.server = server;
    this.config = server.config();
    this.counters = server.counters();
    this.registry = server.registry();
    this.lifecycle = server.lifecycle();
    this.allocator = allocator;
    this.sslContext = sslContext;
    this.transport = transport;
    this.suppliedGroup = suppliedGroup;
    this.shutdownSuppliedGroup = shutdown;
    this.encoder = new ThriftFrameEncoder(config.maxFrameSize());
    this.wire = lifecycle.wireSettings();
    this.lifecycle.transport(this);
    this.settings =
        new ThriftServerHandler.Settings(lifecycle.callPath(), TimeoutPolicy.of(config));
  }

  /** The server users hold: core's, carrying this transport. */
  ThriftServer server() {
    return server;
  }

  /** For tests: the Netty side of a server built by {@link NettyThriftServer#builder()}. */
  static NettyServer of(ThriftServer server) {
    return (NettyServer) ((LifecycleServer) server).lifecycle().transport();
  }

  /**
   * The IO transport in use: {@code NIO}, {@code EPOLL} or {@code IO_URING}, never {@code AUTO};
   * users read it in the start line and {@link #toString()}.
   */
  NettyTransportType ioTransport() {
    return transport.type();
  }

  @Override
  public InetSocketAddress bind() throws IOException {
    group =
        suppliedGroup != null
            ? suppliedGroup
            : new MultiThreadIoEventLoopGroup(
                config.ioThreads(),
                new IoThreadFactory("thrift-nio-netty-io", false),
                transport.handlerFactory());
    int high = config.maxPendingWriteBytes();
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(group)
            .channel(transport.serverChannel())
            .option(ChannelOption.SO_REUSEADDR, true)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(
                ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(high / 2, high))
            .childHandler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    initConnection(ch);
                  }
                });
    if (allocator != null) {
      bootstrap.childOption(ChannelOption.ALLOCATOR, allocator);
    }
    ChannelFuture bound = bootstrap.bind(config.bindAddress()).awaitUninterruptibly();
    if (!bound.isSuccess()) {
      Throwable cause = bound.cause();
      BindException e =
          new BindException("cannot bind " + config.bindAddress() + ": " + cause.getMessage());
      e.initCause(cause);
      throw e;
    }
    serverChannel = bound.channel();
    return (InetSocketAddress) serverChannel.localAddress();
  }

  @Override
  public void stopAccepting() {
    serverChannel.close().awaitUninterruptibly(SHUTDOWN_GRACE_MILLIS);
  }

  @Override
  public void beginStopAccepting() {
    serverChannel.close(); // the listening socket's fd closes at its loop's next select
  }

  @Override
  public boolean inIoThread() {
    EventLoopGroup g = group;
    return g != null && EventLoops.inEventLoopOf(g);
  }

  @Override
  public void release() {
    EventLoopGroup g = group != null ? group : suppliedGroup;
    boolean owned = suppliedGroup == null || shutdownSuppliedGroup;
    if (g != null && owned) {
      EventLoops.shutdown(g, SHUTDOWN_GRACE_MILLIS);
    }
  }

  @Override
  public String describe() {
    // The shape of Grizzly's start line: the IO transport in use, then every setting.
    return "ioTransport="
        + transport.type()
        + (suppliedGroup != null ? " (the caller's event loop group)" : "")
        + ", "
        + config;
  }

  private void initConnection(Channel ch) {
    RegisteredConnection<ConnectionHandle> registered =
        registry.admit(
            new NettyConnectionHandle(ch),
            ch.remoteAddress(),
            ch.localAddress(),
            System.nanoTime());
    if (registered == null) {
      ch.close(); // over maxConnections (counted and logged), or accepted while closing
      return;
    }
    ch.closeFuture().addListener(f -> registry.closed(registered));
    ThriftServerHandler handler = new ThriftServerHandler(settings);
    handler.registration(registered);
    if (sslContext != null) {
      ch.pipeline()
          .addLast("tls", NettyTls.serverHandler(sslContext, config.tls(), ch.alloc()))
          .addLast("tlsHandshakeWatcher", new TlsHandshakeWatcher(registry, registered));
    }
    ch.pipeline()
        .addLast(
            "thriftFrameDecoder",
            ThriftFrameDecoder.server(
                registered.probeOnly() ? wire.forProbes() : wire,
                counters.truncatedFrames::increment))
        .addLast("thriftFrameEncoder", encoder)
        .addLast("thriftServerHandler", handler);
    registry.settle(registered); // close() may have begun after the admission
  }

  /** The line logged at start; for tests, which run with the log at WARN. */
  String startLine() {
    return lifecycle.startLine();
  }

  @Override
  public String toString() {
    return lifecycle.describe("NettyThriftServer", transport.type());
  }
}
