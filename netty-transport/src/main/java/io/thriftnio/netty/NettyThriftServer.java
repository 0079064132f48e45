package io.thriftnio.netty;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.ssl.SslContext;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ProcessorInvoker;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerConfig;
import io.thriftnio.core.ServerStats;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.internal.Checks;
import io.thriftnio.core.internal.ServerCounters;
import io.thriftnio.core.internal.WorkerPools;
import io.thriftnio.core.internal.server.CallPath;
import io.thriftnio.core.internal.server.CallSequencer;
import io.thriftnio.netty.internal.EventLoops;
import io.thriftnio.core.internal.EveryPowerOfTwo;
import io.thriftnio.netty.internal.IoTransport;
import io.thriftnio.netty.internal.NettyTls;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Thrift server on Netty 4.2: framed transport, any {@code TProcessor} or {@code
 * TAsyncProcessor}, any protocol, and the {@link IoStrategy#SAME_THREAD} or {@link
 * IoStrategy#WORKER} thread model.
 *
 * <pre>{@code
 * ThriftServer server = NettyThriftServer.builder()
 *     .processor(new BenchService.Processor<>(handler))
 *     .protocol(new TCompactProtocol.Factory())
 *     .ioStrategy(IoStrategy.WORKER)
 *     .bind(new InetSocketAddress("127.0.0.1", 0))
 *     .build()
 *     .start();
 * }</pre>
 *
 * <p>Each connection's pipeline is {@link ThriftFrameDecoder} (limits) - {@link ThriftFrameEncoder}
 * - {@link ThriftServerHandler} (dispatch, response order, timeouts), behind an {@code SslHandler}
 * when {@link ServerBuilder#tls TLS} is set (a failed or timed-out handshake closes the connection
 * and counts in {@link ServerStats#tlsFailures()}). Threads: the event loops are
 * named {@code thrift-nio-netty-io-N} (they are not daemon threads: a running server keeps the JVM
 * alive), the server's own worker pool {@code thrift-nio-netty-worker-N}.
 *
 * <p>Limits, all from the {@link ServerBuilder}: frames above {@code maxFrameSize} close their
 * connection; over {@code maxConnections} a new connection is accepted and closed at once; {@code
 * idleTimeout} closes a connection with no request and no call in flight; {@code frameTimeout}
 * closes one whose started frame does not complete; above {@code maxPendingWriteBytes} of unwritten
 * responses a connection is no longer read from until they drain.
 *
 * <p>{@link #close()} is graceful: it stops accepting (new connections are refused), stops reading
 * from open connections, lets each finish the calls it has received and closes it once they are
 * answered, and after {@code drainTimeout} closes whatever is left; then it stops the worker pool
 * and, if the server owns them, the event loops. It is idempotent and bounded in time.
 */
public final class NettyThriftServer implements ThriftServer {

  private static final Logger log = LoggerFactory.getLogger(NettyThriftServer.class);

  /** Time allowed for the event loops and the worker pool to stop once the drain is over. */
  private static final long SHUTDOWN_GRACE_MILLIS = 3000;

  private enum State {
    NEW,
    RUNNING,
    CLOSED
  }

  private final ServerConfig config;
  private final IoTransport transport;
  private final EventLoopGroup suppliedGroup;
  private final boolean shutdownSuppliedGroup;
  private final ServerCounters counters = new ServerCounters();
  private final Set<Channel> connections = ConcurrentHashMap.newKeySet();
  private final AtomicInteger openConnections = new AtomicInteger();
  private final CompletableFuture<Void> allConnectionsClosed = new CompletableFuture<>();
  private final CompletableFuture<Void> closed = new CompletableFuture<>();
  private final ThriftFrameEncoder encoder;
  private final ByteBufAllocator allocator;
  private final EveryPowerOfTwo rejectedConnectionsLog = new EveryPowerOfTwo();
  private final EveryPowerOfTwo tlsFailuresLog = new EveryPowerOfTwo();
  private final SslContext sslContext;

  private final Object lock = new Object();
  private State state = State.NEW;
  private volatile boolean closing;
  private EventLoopGroup group;
  private ThreadPoolExecutor ownWorkers;
  private CallPath callPath;
  private Channel serverChannel;
  private volatile InetSocketAddress localAddress;

  private NettyThriftServer(
      ServerConfig config,
      IoTransport transport,
      EventLoopGroup suppliedGroup,
      boolean shutdown,
      ByteBufAllocator allocator,
      SslContext sslContext) {
    this.allocator = allocator;
    this.sslContext = sslContext;
    this.config = config;
    this.transport = transport;
    this.suppliedGroup = suppliedGroup;
    this.shutdownSuppliedGroup = shutdown;
    this.encoder = new ThriftFrameEncoder(config.maxFrameSize());
  }

  /** A builder; see {@link ServerBuilder} for the settings every server shares. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builds a {@link NettyThriftServer}. Adds to the {@link ServerBuilder} settings the IO transport
   * and an optional caller-supplied event loop group. {@link IoStrategy#LEADER_FOLLOWER} is
   * rejected at {@link #build()}.
   */
  public static final class Builder extends ServerBuilder<Builder> {
    private NettyTransportType transport = NettyTransportType.AUTO;
    private EventLoopGroup eventLoopGroup;
    private boolean shutdownOnClose;
    private ByteBufAllocator allocator;

    Builder() {}

    /** For tests: the connections' buffer allocator. Default: Netty's. */
    Builder allocator(ByteBufAllocator allocator) {
      this.allocator = allocator;
      return this;
    }

    /**
     * The IO transport of the server's own event loops. Default: {@link NettyTransportType#AUTO}
     * (epoll when available, else NIO). Ignored when {@link #eventLoopGroup(EventLoopGroup,
     * boolean)} is set: the group's IO handler decides.
     */
    public Builder transport(NettyTransportType transport) {
      this.transport = transport;
      return this;
    }

    /**
     * Runs the server on the caller's event loops (accepting and serving) instead of creating
     * {@code ioThreads} of its own. The group must be a {@code MultiThreadIoEventLoopGroup} with
     * the NIO, epoll or io_uring IO handler. Default: none (the server creates its own).
     *
     * @param group the event loops
     * @param shutdownOnClose whether {@link NettyThriftServer#close()} shuts the group down
     */
    public Builder eventLoopGroup(EventLoopGroup group, boolean shutdownOnClose) {
      this.eventLoopGroup = group;
      this.shutdownOnClose = shutdownOnClose;
      return this;
    }

    /**
     * Validates the settings and creates the server, not yet started.
     *
     * @throws IllegalStateException also if the strategy is {@link IoStrategy#LEADER_FOLLOWER}, or
     *     if {@link NettyTransportType#EPOLL} or {@link NettyTransportType#IO_URING} is asked for
     *     and cannot be used on this machine, or if TLS is set with the OPENSSL provider and
     *     netty-tcnative is not available, or its key material is unusable
     */
    @Override
    public NettyThriftServer build() {
      ServerConfig config = config();
      if (config.ioStrategy() == IoStrategy.LEADER_FOLLOWER) {
        throw new IllegalStateException(
            "ioStrategy: LEADER_FOLLOWER (expected: SAME_THREAD or WORKER): Netty has no"
                + " leader-follower event loop; use GrizzlyThriftServer (thrift-nio-grizzly) for"
                + " LEADER_FOLLOWER");
      }
      Checks.notNull("transport", transport);
      IoTransport io =
          eventLoopGroup != null ? IoTransport.of(eventLoopGroup) : IoTransport.resolve(transport);
      SslContext ssl = config.tls() != null ? NettyTls.serverContext(config.tls()) : null;
      return new NettyThriftServer(config, io, eventLoopGroup, shutdownOnClose, allocator, ssl);
    }
  }

  /**
   * The IO transport in use: {@code NIO}, {@code EPOLL} or {@code IO_URING}, never {@code AUTO}.
   */
  public NettyTransportType transport() {
    return transport.type();
  }

  @Override
  public NettyThriftServer start() throws IOException {
    synchronized (lock) {
      if (state == State.CLOSED) {
        throw new IllegalStateException("server closed: " + config.bindAddress());
      }
      if (state == State.RUNNING) {
        return this;
      }
      group =
          suppliedGroup != null
              ? suppliedGroup
              : new MultiThreadIoEventLoopGroup(
                  config.ioThreads(),
                  new io.thriftnio.netty.internal.IoThreadFactory("thrift-nio-netty-io", false),
                  transport.handlerFactory());
      Executor worker = null;
      if (config.ioStrategy() == IoStrategy.WORKER) {
        worker = config.workerExecutor();
        if (worker == null) {
          ownWorkers =
              WorkerPools.newBoundedPool(
                  "thrift-nio-netty-worker", config.workerThreads(), config.workerQueueCapacity());
          worker = ownWorkers;
        }
      }
      callPath =
          new CallPath(
              ProcessorInvoker.of(config),
              worker,
              counters,
              config.maxCallsInFlightPerConnection(),
              config.workerStartTimeout());
      ThriftServerHandler.Settings settings =
          new ThriftServerHandler.Settings(
              callPath,
              config.idleTimeout().toNanos(),
              config.frameTimeout().toNanos());
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
                      initConnection(ch, settings);
                    }
                  });
      if (allocator != null) {
        bootstrap.childOption(ChannelOption.ALLOCATOR, allocator);
      }
      ChannelFuture bound = bootstrap.bind(config.bindAddress()).awaitUninterruptibly();
      if (!bound.isSuccess()) {
        Throwable cause = bound.cause();
        releaseThreads(false);
        state = State.CLOSED;
        closed.complete(null);
        BindException e =
            new BindException("cannot bind " + config.bindAddress() + ": " + cause.getMessage());
        e.initCause(cause);
        throw e;
      }
      serverChannel = bound.channel();
      localAddress = (InetSocketAddress) serverChannel.localAddress();
      state = State.RUNNING;
      log.info(
          "Thrift server listening on {} ({}, {}, {} IO threads)",
          localAddress,
          transport.type(),
          config.ioStrategy(),
          suppliedGroup != null ? "caller's" : Integer.toString(config.ioThreads()));
      return this;
    }
  }

  private void initConnection(Channel ch, ThriftServerHandler.Settings settings) {
    if (closing) {
      ch.close(); // accepted while the listening socket was closing
      return;
    }
    if (openConnections.incrementAndGet() > config.maxConnections()) {
      openConnections.decrementAndGet();
      counters.rejectedConnections.increment();
      long rejected = rejectedConnectionsLog.record();
      if (rejected != 0) { // the 1st, 2nd, 4th, 8th ...: a flood of connections, not of log lines
        log.warn(
            "Rejected connection from {}: maxConnections {} reached ({} rejected so far)",
            ch.remoteAddress(),
            config.maxConnections(),
            rejected);
      }
      ch.close();
      return;
    }
    counters.acceptedConnections.increment();
    counters.openConnections.increment();
    connections.add(ch);
    ch.closeFuture()
        .addListener(
            f -> {
              connections.remove(ch);
              counters.openConnections.decrement();
              if (openConnections.decrementAndGet() == 0 && closing) {
                allConnectionsClosed.complete(null);
              }
            });
    if (sslContext != null) {
      ch.pipeline()
          .addLast("tls", NettyTls.serverHandler(sslContext, config.tls(), ch.alloc()))
          .addLast("tlsHandshakeWatcher", new TlsHandshakeWatcher(counters, tlsFailuresLog));
    }
    ch.pipeline()
        .addLast(
            "thriftFrameDecoder",
            new ThriftFrameDecoder(
                config.maxFrameSize(),
                config.inputProtocolFactory(),
                counters.truncatedFrames::increment))
        .addLast("thriftFrameEncoder", encoder)
        .addLast("thriftServerHandler", new ThriftServerHandler(settings));
    if (closing) {
      // close() began between the check above and now, and may not have seen this connection.
      ChannelHandlerContext ctx = ch.pipeline().context(ThriftServerHandler.class);
      ch.eventLoop().execute(() -> ((ThriftServerHandler) ctx.handler()).startDrain(ctx));
    }
  }

  @Override
  public InetSocketAddress localAddress() {
    InetSocketAddress address = localAddress;
    if (address == null) {
      throw new IllegalStateException("server not started: " + config.bindAddress());
    }
    return address;
  }

  @Override
  public boolean isRunning() {
    synchronized (lock) {
      return state == State.RUNNING;
    }
  }

  @Override
  public ServerConfig config() {
    return config;
  }

  @Override
  public ServerStats stats() {
    return counters.snapshot();
  }

  /**
   * Closes the server gracefully, as described in the class documentation, and returns once it is
   * closed. Idempotent: a concurrent or later call waits for the first one to finish.
   *
   * <p>On one of the server's own event loops (in a {@code SAME_THREAD} handler, a channel future
   * listener, a task submitted to the group), or in a handler of this server on any strategy, it
   * cannot return once closed: waiting there would
   * stall the connections of that loop, which then could not drain, for the whole {@code
   * drainTimeout}. There it stops accepting, hands the drain and the thread shutdown to a thread
   * named {@code thrift-nio-netty-close-PORT}, and returns at once: {@link #isRunning()} is then
   * false, while connections may still be finishing their calls for up to {@code drainTimeout}. A
   * later call of {@code close()} from another thread waits for that close to finish.
   */
  @Override
  public void close() {
    State before;
    boolean onOwnLoop;
    synchronized (lock) {
      before = state;
      state = State.CLOSED;
      // In a call (a handler closing its own server, on any strategy), waiting for the drain
      // would wait for that very call.
      onOwnLoop =
          (group != null && EventLoops.inEventLoopOf(group))
              || (callPath != null && CallSequencer.inCallOf(callPath));
    }
    if (before == State.CLOSED) {
      if (!onOwnLoop) {
        awaitClosedByOtherCaller();
      }
      return;
    }
    if (before == State.RUNNING && onOwnLoop) {
      closing = true;
      serverChannel.close(); // stop accepting now; the drain waits for it on the closing thread
      Thread closer =
          new Thread(() -> finishClose(before), "thrift-nio-netty-close-" + localAddress.getPort());
      // Not a daemon: the close is bounded in time and should complete, like a close() on any
      // other thread, even if the application's last thread ends meanwhile.
      closer.start();
      return;
    }
    finishClose(before);
  }

  private void finishClose(State before) {
    try {
      if (before == State.RUNNING) {
        drain();
      }
      releaseThreads(before == State.NEW);
    } finally {
      closed.complete(null);
    }
    if (before == State.RUNNING) {
      log.info("Thrift server on {} closed; {}", localAddress, counters.snapshot());
    }
  }

  private void drain() {
    closing = true;
    boolean interrupted = false;
    // 1. Stop accepting: the listening socket closes, new connections are refused.
    serverChannel.close().awaitUninterruptibly(SHUTDOWN_GRACE_MILLIS);
    // 2. Each connection stops reading and closes once its received calls are answered.
    if (openConnections.get() == 0) {
      allConnectionsClosed.complete(null);
    }
    for (Channel ch : connections) {
      ChannelHandlerContext ctx = ch.pipeline().context(ThriftServerHandler.class);
      if (ctx == null) {
        continue;
      }
      ThriftServerHandler handler = (ThriftServerHandler) ctx.handler();
      try {
        ch.eventLoop().execute(() -> handler.startDrain(ctx));
      } catch (RejectedExecutionException loopGone) {
        ch.close(); // the caller's group was shut down under us; nothing left to drain
      }
    }
    long drainMillis = config.drainTimeout().toMillis();
    try {
      allConnectionsClosed.get(drainMillis, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      log.warn(
          "Drain timeout {} ms passed with {} connections still serving calls on {}; closing them",
          drainMillis,
          connections.size(),
          localAddress);
    } catch (InterruptedException e) {
      interrupted = true;
    } catch (ExecutionException e) {
      throw new IllegalStateException(e); // never completed exceptionally
    }
    // 3. Whatever is left is closed now.
    for (Channel ch : connections) {
      ch.close();
    }
    if (!interrupted) {
      try {
        allConnectionsClosed.get(SHUTDOWN_GRACE_MILLIS, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        interrupted = true;
      } catch (TimeoutException | ExecutionException e) {
        log.warn("{} connections of {} did not close in time", connections.size(), localAddress);
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt(); // restored; close() goes on without waiting further
    }
  }

  private void releaseThreads(boolean neverStarted) {
    if (ownWorkers != null) {
      // The drain is over: whatever still runs has lost its connection. Tasks that never ran hold
      // request frames that no call will release.
      for (Runnable never : ownWorkers.shutdownNow()) {
        CallSequencer.abandon(never);
      }
      awaitQuietly(ownWorkers);
    }
    EventLoopGroup g = group != null ? group : suppliedGroup;
    boolean owned = suppliedGroup == null || shutdownSuppliedGroup;
    if (g == null || !owned || (neverStarted && suppliedGroup == null)) {
      return;
    }
    EventLoops.shutdown(g, SHUTDOWN_GRACE_MILLIS);
  }

  private static void awaitQuietly(ThreadPoolExecutor pool) {
    try {
      pool.awaitTermination(SHUTDOWN_GRACE_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void awaitClosedByOtherCaller() {
    try {
      closed.get(
          config.drainTimeout().toMillis() + 4 * SHUTDOWN_GRACE_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // The first caller is still closing or failed; close() must not hang or throw here.
      log.debug("close() returned before a concurrent close() finished", e);
    }
  }

  @Override
  public String toString() {
    return "NettyThriftServer{"
        + (localAddress != null ? localAddress : config.bindAddress())
        + ", "
        + transport.type()
        + ", "
        + config.ioStrategy()
        + '}';
  }
}
