package io.thriftnio.grizzly;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerConfig;
import io.thriftnio.core.ServerStats;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.internal.NamedThreadFactory;
import io.thriftnio.core.internal.server.ConnectionHandle;
import io.thriftnio.core.internal.server.ConnectionRegistry;
import io.thriftnio.core.internal.server.LifecycleServer;
import io.thriftnio.core.internal.server.ServerLifecycle;
import io.thriftnio.core.internal.server.TimeoutPolicy;
import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.util.internal.ServerCounters;
import io.thriftnio.core.wire.WireSettings;
import io.thriftnio.grizzly.internal.FollowerPool;
import io.thriftnio.grizzly.internal.Transports;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectableChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.glassfish.grizzly.filterchain.FilterChain;
import org.glassfish.grizzly.filterchain.FilterChainBuilder;
import org.glassfish.grizzly.filterchain.TransportFilter;
import org.glassfish.grizzly.nio.SelectorRunner;
import org.glassfish.grizzly.nio.transport.TCPNIOBindingHandler;
import org.glassfish.grizzly.nio.transport.TCPNIOServerConnection;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.glassfish.grizzly.threadpool.Threads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Thrift server on Grizzly 4.0: {@code TFramedTransport} on the wire, any {@code TProcessor} or
 * {@code TAsyncProcessor}, any protocol, and all three {@link IoStrategy IO strategies} mapped to
 * Grizzly's own.
 *
 * <pre>{@code
 * ThriftServer server = GrizzlyThriftServer.builder()
 *     .processor(new BenchService.Processor<>(handler))
 *     .ioStrategy(IoStrategy.WORKER)
 *     .workerThreads(32)
 *     .bind(new InetSocketAddress("127.0.0.1", 0))
 *     .build()
 *     .start();
 * }</pre>
 *
 * <p>The filter chain of every accepted connection:
 *
 * <pre>
 *  TransportFilter -&gt; connection guard -&gt; ThriftFrameFilter -&gt; ThriftServerFilter
 *                     (maxConnections)     (frame rules)         (ProcessorInvoker, ordered replies)
 * </pre>
 *
 * <p>Framed peers only by default; with {@link ServerBuilder#wireKinds} also unframed peers (a bare
 * {@code TSocket}) and HTTP/1.1 peers ({@code THttpClient}, posting to {@link
 * ServerBuilder#httpPath}) on the same port, told apart by each connection's first byte, their
 * replies unframed or HTTP responses, every other setting applying alike.
 *
 * <p>With {@linkplain ServerBuilder#tls TLS}, Grizzly's {@code SSLFilter} follows the guard. A
 * failed handshake, or one not complete within the handshake timeout after accept (checked by the
 * timer thread), closes the connection and counts in {@link ServerStats#tlsFailures()}. The {@code
 * OPENSSL} provider is refused at {@code build()}: Grizzly uses the JDK's TLS.
 *
 * <table>
 *   <caption>Strategies</caption>
 *   <tr><th>{@link IoStrategy}</th><th>Grizzly</th><th>threads</th></tr>
 *   <tr><td>{@code SAME_THREAD}</td><td>{@code SameThreadIOStrategy}</td>
 *       <td>{@code ioThreads} selector runners run the processor</td></tr>
 *   <tr><td>{@code WORKER}</td><td>{@code SameThreadIOStrategy} for reading; each request is
 *       then a task of its own</td>
 *       <td>a bounded pool of {@code workerThreads} (queue {@code workerQueueCapacity}), or the
 *           caller's {@code workerExecutor}, runs the calls, one connection's in parallel; a full
 *           pool is answered with {@code TApplicationException(INTERNAL_ERROR)} "server
 *           overloaded"</td></tr>
 *   <tr><td>{@code LEADER_FOLLOWER}</td><td>{@code LeaderFollowerNIOStrategy}</td>
 *       <td>{@code workerThreads} threads take turns as selector leader (unbounded queue: the
 *           strategy hands selector loops, not requests, to the pool), or the caller's
 *           executor, which must not reject</td></tr>
 * </table>
 *
 * <p>Memory comes from a pooled memory manager shared by this module. Each connection's async write
 * queue is bounded by {@code maxPendingWriteBytes}: above it the server stops reading from that
 * connection until the peer has taken its responses. Idle connections ({@code idleTimeout}) and
 * stalled partial frames ({@code frameTimeout}) are closed by a timer thread and counted in {@link
 * ServerStats#timedOutConnections()}. Threads are named {@code thrift-nio-grizzly-...}; the
 * selector threads are not daemon threads (a running server keeps the JVM alive, as on Netty).
 *
 * <p>{@link #close()} is graceful and idempotent: it stops accepting (new connections are refused;
 * with a {@link ServerBuilder#healthPath health path} the listening socket stays open until the
 * drain ends, and a connection accepted meanwhile is served for the probe alone: {@code 503}), lets
 * calls received answer for up to {@code drainTimeout}, answers each call that arrives meanwhile
 * {@code not run: the server is draining} ({@link io.thriftnio.core.NotRun}) without running it,
 * closes each connection once it is quiet, then closes every connection left and the threads the
 * server owns. Called in one of the server's calls or on a Grizzly selector thread, it returns at
 * once and the drain goes on in a thread named {@code thrift-nio-grizzly-server-close-PORT}.
 *
 * <p>Grizzly itself logs through {@code java.util.logging}; this class logs through SLF4J.
 */
public final class GrizzlyThriftServer implements ThriftServer {

  private final LifecycleServer server;
  private final ServerConfig config;
  private final ServerCounters counters;
  private final ConnectionRegistry<ConnectionHandle> registry;
  private final ServerLifecycle lifecycle;

  private static final Logger log = LoggerFactory.getLogger(GrizzlyThriftServer.class);
  private static final String THREAD_PREFIX = "thrift-nio-grizzly-server";

  /**
   * How long a close waits for the listening socket to be closed in the kernel (as unbind does).
   */
  private static final long LISTENER_CLOSE_MILLIS = 1000;

  private final TCPNIOTransport suppliedTransport;
  private final boolean ownsTransport;
  private final ThriftServerFilter serverFilter;
  private final FilterChain filterChain;
  final TimeoutSweep timeouts;

  /** Set by {@link #start()} under the lifecycle's lock, read by {@link #close()} after it. */
  private volatile TCPNIOTransport transport;

  private final ConnectionGuardFilter guard;
  private volatile FollowerPool workerPool;
  private volatile TCPNIOServerConnection serverConnection;
  private volatile ScheduledExecutorService timer;

  private GrizzlyThriftServer(Builder b, LifecycleServer server) {
    this.server = server;
    this.config = server.config();
    this.counters = server.counters();
    this.registry = server.registry();
    this.lifecycle = server.lifecycle();
    this.suppliedTransport = b.transport;
    this.ownsTransport = b.transport == null || b.ownsTransport;
    this.lifecycle.transport(new Binding());
    this.timeouts = new TimeoutSweep(registry, TimeoutPolicy.of(config), config.tls() != null);
    ThriftFrameFilter frameFilter =
        new ThriftFrameFilter(
            WireSettings.of(
                    config.maxFrameSize(),
                    config.wireKinds(),
                    config.inputProtocolFactory(),
                    config.httpPath())
                .withHealth(config.healthPath(), lifecycle::isRunning)
                .withSasl(lifecycle.sasl()),
            () -> {}, // the server filter counts the refusals it is told of
            counters.truncatedFrames::increment);
    this.serverFilter = new ThriftServerFilter(lifecycle.callPath());
    this.guard = new ConnectionGuardFilter(registry, serverFilter);
    FilterChainBuilder chain = FilterChainBuilder.stateless().add(new TransportFilter()).add(guard);
    if (config.tls() != null) {
      chain.add(TlsFilters.server(config.tls(), registry));
    }
    this.filterChain = chain.add(frameFilter).add(serverFilter).build();
  }

  @Override
  public ThriftServer start() throws IOException {
    server.start();
    return this;
  }

  @Override
  public InetSocketAddress localAddress() {
    return server.localAddress();
  }

  @Override
  public boolean isRunning() {
    return server.isRunning();
  }

  @Override
  public ServerConfig config() {
    return config;
  }

  @Override
  public ServerStats stats() {
    return server.stats();
  }

  @Override
  public boolean beforeDrain(Runnable hook) {
    return server.beforeDrain(hook);
  }

  @Override
  public void close() {
    server.close();
  }

  /** The Grizzly strategy: WORKER reads on the selectors and dispatches in the call path. */
  private IoStrategy grizzlyStrategy() {
    return config.ioStrategy() == IoStrategy.WORKER ? IoStrategy.SAME_THREAD : config.ioStrategy();
  }

  /** A builder; see {@link ServerBuilder} for the settings every server shares. */
  public static Builder builder() {
    return new Builder();
  }

  /** The server's side of {@link ServerLifecycle}: the transport, the listening connection. */
  private final class Binding implements ServerLifecycle.Transport {
    @Override
    public InetSocketAddress bind() throws IOException {
      transport = suppliedTransport != null ? prepareSupplied(suppliedTransport) : newTransport();
      // The chain goes on the listening connection before it accepts anything, so a shared
      // transport's own processor never sees this server's connections.
      serverConnection = bindListener();
      guard.watchAccepts(serverConnection);
      timer =
          Executors.newSingleThreadScheduledExecutor(
              new NamedThreadFactory(THREAD_PREFIX + "-timer"));
      long period = timeouts.periodMillis();
      timer.scheduleWithFixedDelay(timeouts, period, period, TimeUnit.MILLISECONDS);
      return (InetSocketAddress) serverConnection.getLocalAddress();
    }

    @Override
    public void beginStopAccepting() {
      serverFilter.drain(); // connections without a call path yet drain as they get one
    }

    @Override
    public void stopAccepting() {
      serverFilter.drain();
      TCPNIOServerConnection listener = serverConnection;
      try {
        transport.unbind(listener);
      } catch (RuntimeException e) {
        log.warn("Could not unbind {}", lifecycle.boundAddress(), e);
        return;
      }
      awaitSocketClosed(listener);
    }

    /**
     * Waits, at most {@link #LISTENER_CLOSE_MILLIS}, until the listening socket is closed in the
     * kernel: nobody can connect once {@code close()} returns. Grizzly's close of {@code listener}
     * completes once its selector thread closed the channel, but a channel registered with a
     * selector keeps its socket open (the kernel still completes connects into its backlog) until
     * that selector's next selection deregisters it. The selector thread tells when: a task it runs
     * after that selection finds the channel no longer registered, and that thread closed the
     * socket as it deregistered it.
     */
    private void awaitSocketClosed(TCPNIOServerConnection listener) {
      SelectableChannel channel = listener == null ? null : listener.getChannel();
      SelectorRunner runner = listener == null ? null : listener.getSelectorRunner();
      if (channel == null || runner == null) {
        return; // never bound
      }
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LISTENER_CLOSE_MILLIS);
      try {
        while (true) {
          CompletableFuture<Boolean> closed = new CompletableFuture<>();
          transport
              .getSelectorHandler()
              .enque(
                  runner,
                  () -> {
                    closed.complete(!channel.isRegistered());
                    return true;
                  },
                  null);
          if (closed.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
            return;
          }
        }
      } catch (TimeoutException | ExecutionException | RuntimeException e) {
        log.warn(
            "The listening socket {} was not seen closed within {} ms of its close; it accepts"
                + " connections until its selector thread runs again",
            lifecycle.boundAddress(),
            LISTENER_CLOSE_MILLIS,
            e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // restored; the close goes on without waiting further
      }
    }

    @Override
    public boolean inIoThread() {
      // Any Grizzly selector thread, this server's or another transport's: waiting there for the
      // drain would stall its connections, which may be the very ones that must finish.
      return Threads.isService();
    }

    @Override
    public void release() {
      if (timer != null) {
        timer.shutdownNow();
      }
      TCPNIOTransport t = transport != null ? transport : suppliedTransport;
      if (t != null && ownsTransport) {
        try {
          t.shutdownNow();
        } catch (IOException | RuntimeException e) {
          log.warn("Error shutting down the Grizzly transport", e);
        }
      }
      if (workerPool != null) {
        workerPool.shutdownNow();
      }
    }

    @Override
    public String describe() {
      return "ioTransport=NIO"
          + (suppliedTransport != null ? " (the caller's TCPNIOTransport)" : "")
          + ", "
          + config;
    }
  }

  private TCPNIOServerConnection bindListener() throws BindException {
    try {
      return TCPNIOBindingHandler.builder(transport)
          .processor(filterChain)
          .build()
          .bind(config.bindAddress());
    } catch (IOException e) {
      BindException bind =
          new BindException("cannot bind " + config.bindAddress() + ": " + e.getMessage());
      bind.initCause(e);
      throw bind;
    }
  }

  private TCPNIOTransport newTransport() throws IOException {
    workerPool = newWorkerPool();
    TCPNIOTransport t =
        Transports.newTransport(
            THREAD_PREFIX,
            grizzlyStrategy(),
            config.ioThreads(),
            workerPool,
            config.maxPendingWriteBytes(),
            false);
    t.setProcessor(filterChain);
    t.start();
    return t;
  }

  /**
   * A caller's transport: configured like ours while it is still stopped; used as it is (with its
   * own strategy and pools) once started.
   */
  private TCPNIOTransport prepareSupplied(TCPNIOTransport t) throws IOException {
    if (t.isStopped()) {
      workerPool = newWorkerPool();
      t.setIOStrategy(Transports.grizzlyStrategy(grizzlyStrategy()));
      t.setSelectorRunnersCount(config.ioThreads());
      if (workerPool != null) {
        t.setWorkerThreadPool(workerPool);
      }
      t.getAsyncQueueIO()
          .getWriter()
          .setMaxPendingBytesPerConnection(config.maxPendingWriteBytes());
      t.start();
    } else {
      log.debug("Using the caller's running transport {} with its own IO strategy", t.getName());
    }
    return t;
  }

  private FollowerPool newWorkerPool() {
    return FollowerPool.of(config, THREAD_PREFIX);
  }

  /** The server's call path filter; tests hook into its reads. */
  ThriftServerFilter serverFilter() {
    return serverFilter;
  }

  /** One timeout sweep as of {@code now}; tests run it with a clock set ahead. */
  void sweep(long now) {
    timeouts.sweep(now);
  }

  /** The line logged at start; for tests, which run with the log at WARN. */
  String startLine() {
    return lifecycle.startLine();
  }

  /**
   * The bound address (the configured one before {@link #start()}), the IO transport and the
   * strategy, in the shape of {@code NettyThriftServer}'s: {@code GrizzlyThriftServer{/127.0.0.1:
   * 9090, NIO, WORKER}}.
   */
  @Override
  public String toString() {
    return lifecycle.describe("GrizzlyThriftServer", "NIO");
  }

  /**
   * Builds a {@link GrizzlyThriftServer}. Besides the {@linkplain ServerBuilder shared settings}, a
   * caller may supply its own {@link TCPNIOTransport}.
   */
  public static final class Builder extends ServerBuilder<Builder> {
    private TCPNIOTransport transport;
    private boolean ownsTransport;

    private Builder() {}

    /**
     * Validates the settings and creates the server with its filter chain, not yet started: no
     * thread runs and no socket is open until {@link GrizzlyThriftServer#start()}.
     *
     * @throws SettingException as {@link ServerBuilder#build()}: a value out of range, a required
     *     value missing, or a setting the others would ignore or contradict
     * @throws IllegalStateException if TLS asks for the OPENSSL provider (Grizzly uses the JDK's
     *     TLS)
     */
    @Override
    public ThriftServer build() {
      return new GrizzlyThriftServer(
          this, new LifecycleServer("Grizzly Thrift server", THREAD_PREFIX, config()));
    }

    /**
     * Serves on a caller's transport instead of one created by the server. If the transport is not
     * yet started, the server configures it (IO strategy, selector runners, worker pool, write
     * queue limit) and starts it; a started transport is used as it is, with its own strategy and
     * pools. The server binds its own listening connection on it and sets its filter chain on that
     * connection only. Default: none (the server creates and owns its transport).
     *
     * @param transport the transport
     * @param shutdownOnClose whether {@link GrizzlyThriftServer#close()} shuts the transport down;
     *     when {@code false} only this server's connections are closed
     * @return this builder
     */
    public Builder ioTransport(TCPNIOTransport transport, boolean shutdownOnClose) {
      this.transport = transport;
      this.ownsTransport = shutdownOnClose;
      return this;
    }
  }
}
