package io.thriftnio.grizzly;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerConfig;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.internal.NamedThreadFactory;
import io.thriftnio.core.internal.server.ConnectionHandle;
import io.thriftnio.core.internal.server.ConnectionRegistry;
import io.thriftnio.core.internal.server.LifecycleServer;
import io.thriftnio.core.internal.server.ServerLifecycle;
import io.thriftnio.core.internal.server.TimeoutPolicy;
import io.thriftnio.core.util.internal.ServerCounters;
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
 * The Grizzly side of a server built by {@link GrizzlyThriftServer.Builder}: the transport, the
 * listening connection, the filter chain and the timeout sweep, behind the {@link LifecycleServer}
 * every transport's server is. The lifecycle (start, drain, close) and the {@link ThriftServer}
 * contract are core's; this class only binds, accepts and releases.
 */
final class GrizzlyServer implements ServerLifecycle.Transport {

  private final LifecycleServer server;
  private final ServerConfig config;
  private final ServerCounters counters;
  private final ConnectionRegistry<ConnectionHandle> registry;
  private final ServerLifecycle lifecycle;

  private static final Logger log = LoggerFactory.getLogger(GrizzlyThriftServer.class);
  static final String THREAD_PREFIX = "thrift-nio-grizzly-server";

  /**
   * How long a close waits for the listening socket to be closed in the kernel (as unbind does).
   */
  private static final long LISTENER_CLOSE_MILLIS = 1000;

  private final TCPNIOTransport suppliedTransport;
  private final boolean ownsTransport;
  private final ThriftServerFilter serverFilter;
  private final FilterChain filterChain;
  final TimeoutSweep timeouts;

  /** Set by {@link #bind()} under the lifecycle's lock, read by {@link #release()} after it. */
  private volatile TCPNIOTransport transport;

  private final ConnectionGuardFilter guard;
  private volatile FollowerPool workerPool;
  private volatile TCPNIOServerConnection serverConnection;
  private volatile ScheduledExecutorService timer;

  GrizzlyServer(GrizzlyThriftServer.Builder b, LifecycleServer server) {
    this.server = server;
    this.config = server.config();
    this.counters = server.counters();
    this.registry = server.registry();
    this.lifecycle = server.lifecycle();
    this.suppliedTransport = b.transport;
    this.ownsTransport = b.transport == null || b.ownsTransport;
    this.lifecycle.transport(this);
    this.timeouts = new TimeoutSweep(registry, TimeoutPolicy.of(config), config.tls() != null);
    ThriftFrameFilter frameFilter =
        new ThriftFrameFilter(
            lifecycle.wireSettings(),
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

  /** The server users hold: core's, carrying this transport. */
  ThriftServer server() {
    return server;
  }

  /** For tests: the Grizzly side of a server built by {@link GrizzlyThriftServer#builder()}. */
  static GrizzlyServer of(ThriftServer server) {
    return (GrizzlyServer) ((LifecycleServer) server).lifecycle().transport();
  }

  /** The Grizzly strategy: WORKER reads on the selectors and dispatches in the call path. */
  private IoStrategy grizzlyStrategy() {
    return config.ioStrategy() == IoStrategy.WORKER ? IoStrategy.SAME_THREAD : config.ioStrategy();
  }

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
   * completes once its selector thread closed the channel, but a channel registered with a selector
   * keeps its socket open (the kernel still completes connects into its backlog) until that
   * selector's next selection deregisters it. The selector thread tells when: a task it runs after
   * that selection finds the channel no longer registered, and that thread closed the socket as it
   * deregistered it.
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
   * The bound address (the configured one before {@link ThriftServer#start()}), the IO transport
   * and the strategy, in the shape of {@code NettyThriftServer}'s: {@code
   * GrizzlyThriftServer{/127.0.0.1: 9090, NIO, WORKER}}.
   */
  @Override
  public String toString() {
    return lifecycle.describe("GrizzlyThriftServer", "NIO");
  }
}
