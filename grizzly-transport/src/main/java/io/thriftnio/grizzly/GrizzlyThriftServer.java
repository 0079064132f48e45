package io.thriftnio.grizzly;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ProcessorInvoker;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerConfig;
import io.thriftnio.core.ServerStats;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.internal.NamedThreadFactory;
import io.thriftnio.core.internal.ServerCounters;
import io.thriftnio.core.internal.WorkerPools;
import io.thriftnio.core.internal.server.CallPath;
import io.thriftnio.core.internal.server.CallSequencer;
import io.thriftnio.grizzly.internal.FollowerPool;
import io.thriftnio.grizzly.internal.Transports;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.concurrent.atomic.AtomicLong;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.attributes.Attribute;
import org.glassfish.grizzly.filterchain.FilterChain;
import org.glassfish.grizzly.filterchain.FilterChainBuilder;
import org.glassfish.grizzly.ssl.SSLFilter;
import org.glassfish.grizzly.filterchain.TransportFilter;
import org.glassfish.grizzly.nio.transport.TCPNIOBindingHandler;
import org.glassfish.grizzly.nio.transport.TCPNIOServerConnection;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
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
 * <p>With {@linkplain ServerBuilder#tls TLS}, Grizzly's {@code SSLFilter} follows the guard. A
 * failed handshake, or one not complete within the handshake timeout after accept (checked by the
 * timer thread), closes the connection and counts in {@link ServerStats#tlsFailures()}. The
 * {@code OPENSSL} provider is refused at {@code build()}: Grizzly uses the JDK's TLS.
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
 * <p>Memory comes from a pooled memory manager shared by this module. Each connection's async
 * write queue is bounded by {@code maxPendingWriteBytes}: above it the server stops reading from
 * that connection until the peer has taken its responses. Idle connections ({@code idleTimeout})
 * and stalled partial frames ({@code frameTimeout}) are closed by a timer thread and counted in
 * {@link ServerStats#timedOutConnections()}. Threads are named {@code thrift-nio-grizzly-...}; the
 * selector threads are not daemon threads (a running server keeps the JVM alive, as on Netty).
 *
 * <p>{@link #close()} is graceful and idempotent: it stops accepting (new connections are
 * refused), stops starting new requests, lets calls in flight answer for up to {@code
 * drainTimeout}, then closes every connection and the threads the server owns.
 *
 * <p>Grizzly itself logs through {@code java.util.logging}; this class logs through SLF4J.
 */
public final class GrizzlyThriftServer implements ThriftServer {

  private static final Logger log = LoggerFactory.getLogger(GrizzlyThriftServer.class);
  private static final String THREAD_PREFIX = "thrift-nio-grizzly-server";
  /** When the sweep first found a connection's write queue full; absent while it is not. */
  private static final Attribute<Long> UNWRITABLE_SINCE =
      Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(
          GrizzlyThriftServer.class.getName() + ".unwritableSince");

  private final ServerConfig config;
  private final ServerCounters counters = new ServerCounters();
  private final TCPNIOTransport suppliedTransport;
  private final boolean ownsTransport;
  private final ConnectionGuardFilter guard;
  private final ThriftFrameFilter frameFilter;
  private final ThriftServerFilter serverFilter;
  /** Runs each call for WORKER; null for the other strategies. */
  private final Executor callWorker;
  private final CallPath callPath;
  private final FilterChain filterChain;
  private final Object lock = new Object();
  private final CountDownLatch closed = new CountDownLatch(1);
  private final AtomicLong tlsFailuresLog = new AtomicLong();

  private TCPNIOTransport transport;
  private FollowerPool workerPool;
  private TCPNIOServerConnection serverConnection;
  private InetSocketAddress localAddress;
  private ScheduledExecutorService timer;
  private State state = State.NEW;

  /** Runs between the sweep finding a connection idle and closing it; tests widen the race. */
  volatile Consumer<Connection<?>> beforeIdleClose = c -> {};

  private enum State {
    NEW,
    RUNNING,
    CLOSING,
    CLOSED
  }

  private GrizzlyThriftServer(Builder b, ServerConfig config) {
    this.config = config;
    this.suppliedTransport = b.transport;
    this.ownsTransport = b.transport == null || b.ownsTransport;
    this.guard = new ConnectionGuardFilter(config.maxConnections(), counters);
    this.frameFilter =
        new ThriftFrameFilter(
            config.maxFrameSize(),
            config.inputProtocolFactory(),
            () -> {}, // the server filter counts the frames it is told of
            counters.truncatedFrames::increment);
    this.callWorker = callWorker(config);
    this.callPath =
        new CallPath(
            ProcessorInvoker.of(config),
            callWorker,
            counters,
            config.maxCallsInFlightPerConnection(),
            config.workerStartTimeout());
    this.serverFilter = new ThriftServerFilter(callPath);
    FilterChainBuilder chain = FilterChainBuilder.stateless().add(new TransportFilter()).add(guard);
    if (config.tls() != null) {
      SSLFilter tls = TlsFilters.server(config.tls(), counters, tlsFailuresLog);
      chain.add(tls);
    }
    this.filterChain = chain.add(frameFilter).add(serverFilter).build();
  }

  /**
   * Where calls run for {@link IoStrategy#WORKER}: the caller's executor, or a bounded pool of the
   * server's own (its threads start with the first call). Requests are read on the selector
   * threads and each is handed to it, as on Netty.
   */
  private static Executor callWorker(ServerConfig config) {
    if (config.ioStrategy() != IoStrategy.WORKER) {
      return null;
    }
    if (config.workerExecutor() != null) {
      return config.workerExecutor();
    }
    return WorkerPools.newBoundedPool(
        THREAD_PREFIX + "-worker", config.workerThreads(), config.workerQueueCapacity());
  }

  /** The Grizzly strategy: WORKER reads on the selectors and dispatches in the call path. */
  private IoStrategy grizzlyStrategy() {
    return config.ioStrategy() == IoStrategy.WORKER ? IoStrategy.SAME_THREAD : config.ioStrategy();
  }

  /** A builder; see {@link ServerBuilder} for the settings every server shares. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public GrizzlyThriftServer start() throws IOException {
    synchronized (lock) {
      if (state == State.RUNNING) {
        return this;
      }
      if (state != State.NEW) {
        throw new IllegalStateException("server closed (state " + state + "); build a new one");
      }
      try {
        transport = suppliedTransport != null ? prepareSupplied(suppliedTransport) : newTransport();
        // The chain goes on the listening connection before it accepts anything, so a shared
        // transport's own processor never sees this server's connections.
        serverConnection = bind();
        localAddress = (InetSocketAddress) serverConnection.getLocalAddress();
        timer =
            Executors.newSingleThreadScheduledExecutor(
                new NamedThreadFactory(THREAD_PREFIX + "-timer"));
        long period = sweepPeriodMillis();
        timer.scheduleWithFixedDelay(this::sweep, period, period, TimeUnit.MILLISECONDS);
      } catch (IOException | RuntimeException e) {
        state = State.CLOSED;
        releaseResources();
        closed.countDown();
        throw e;
      }
      state = State.RUNNING;
      log.info("Grizzly Thrift server listening on {} ({})", localAddress, config);
      return this;
    }
  }

  private TCPNIOServerConnection bind() throws BindException {
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
      t.getAsyncQueueIO().getWriter().setMaxPendingBytesPerConnection(config.maxPendingWriteBytes());
      t.start();
    } else {
      log.debug("Using the caller's running transport {} with its own IO strategy", t.getName());
    }
    return t;
  }

  private FollowerPool newWorkerPool() {
    switch (config.ioStrategy()) {
      case SAME_THREAD:
        return null;
      case WORKER:
        return null; // the call path dispatches to callWorker
      case LEADER_FOLLOWER:
        if (config.workerExecutor() != null) {
          return new FollowerPool(config.workerExecutor(), false);
        }
        // The strategy hands a selector loop to the pool whenever a thread takes an event; a
        // rejected hand-over would stall the selector, so this pool queues without bound.
        ThreadPoolExecutor followers =
            new ThreadPoolExecutor(
                config.workerThreads(),
                config.workerThreads(),
                60,
                TimeUnit.SECONDS,
                new java.util.concurrent.LinkedBlockingQueue<>(),
                new NamedThreadFactory(THREAD_PREFIX + "-leader"));
        followers.allowCoreThreadTimeOut(true);
        return new FollowerPool(followers, true);
      default:
        throw new IllegalStateException("ioStrategy: " + config.ioStrategy());
    }
  }

  private long sweepPeriodMillis() {
    long shortest = config.frameTimeout().toMillis();
    if (config.tls() != null) {
      shortest = Math.min(shortest, config.tls().handshakeTimeout().toMillis());
    }
    if (!config.idleTimeout().isZero()) {
      shortest = Math.min(shortest, config.idleTimeout().toMillis());
    }
    return Math.max(5, Math.min(1000, shortest / 4));
  }

  /** Closes idle connections and stalled partial frames. Runs on the timer thread. */
  private void sweep() {
    sweep(System.nanoTime());
  }

  /** One sweep as of {@code now}; tests run it with a clock set ahead. */
  void sweep(long now) {
    try {
      long idleNanos = config.idleTimeout().toNanos();
      long frameNanos = config.frameTimeout().toNanos();
      long handshakeNanos = config.tls() != null ? config.tls().handshakeTimeout().toNanos() : 0;
      for (Connection<?> c : guard.connections()) {
        if (handshakeNanos > 0 && TlsFilters.handshaking(c)) {
          long acceptedAt = guard.acceptedAt(c);
          if (acceptedAt != 0 && now - acceptedAt > handshakeNanos) {
            TlsFilters.fail(c, counters, tlsFailuresLog, "handshake timed out after "
                + config.tls().handshakeTimeout().toMillis() + " ms");
          }
          continue;
        }
        long partialSince = ThriftFrameFilter.partialFrameSince(c);
        if (partialSince != 0 && now - partialSince > frameNanos) {
          ThriftFrameFilter.discardRest(c);
          timeOut(c, "a frame started " + millisSince(partialSince, now) + " ms ago is incomplete"
              + " (frameTimeout " + config.frameTimeout().toMillis() + " ms)");
          continue;
        }
        if (isStalledReader(c, now, frameNanos)) {
          continue;
        }
        if (idleNanos > 0 && partialSince == 0 && ThriftServerFilter.inFlight(c) == 0) {
          long lastRead = ThriftFrameFilter.lastRead(c);
          long accepted = guard.acceptedAt(c);
          if (accepted == 0 || lastRead == ThriftFrameFilter.IDLE_CLOSED) {
            continue; // closed meanwhile
          }
          long last =
              Math.max(Math.max(ThriftServerFilter.lastActivity(c), lastRead), accepted);
          // Calls start only on a read, so if no byte has been read since lastRead (checked and
          // committed in one step by claimIdle), none has started since inFlight was 0 (issue 7).
          if (now - last > idleNanos) {
            beforeIdleClose.accept(c);
            if (ThriftFrameFilter.claimIdle(c, lastRead)) {
              timeOut(c, "idle for " + millisSince(last, now) + " ms (idleTimeout "
                  + config.idleTimeout().toMillis() + " ms)");
            }
          }
        }
      }
    } catch (RuntimeException e) {
      log.warn("Timeout sweep failed; will retry", e);
    }
  }

  /**
   * Closes {@code c} if its responses have stayed above maxPendingWriteBytes for frameTimeout in a
   * row: a peer that sends and never reads is no longer read from, so no other clock would end it.
   */
  private boolean isStalledReader(Connection<?> c, long now, long frameNanos) {
    if (c.canWrite()) {
      UNWRITABLE_SINCE.remove(c);
      return false;
    }
    Long since = UNWRITABLE_SINCE.get(c);
    if (since == null) {
      UNWRITABLE_SINCE.set(c, now);
      return false;
    }
    if (now - since <= frameNanos) {
      return false;
    }
    timeOut(c, "its responses have waited unread for " + millisSince(since, now) + " ms"
        + " (frameTimeout " + config.frameTimeout().toMillis() + " ms, above maxPendingWriteBytes"
        + " " + config.maxPendingWriteBytes() + "): stalled reader");
    return true;
  }

  private static long millisSince(long since, long now) {
    return TimeUnit.NANOSECONDS.toMillis(now - since);
  }

  private void timeOut(Connection<?> c, String why) {
    if (c.isOpen()) {
      counters.timedOutConnections.increment();
      log.info("Closing connection from {}: {}", c.getPeerAddress(), why);
      // Not closeSilently(): a graceful close waits for the write queue, and a peer that stopped
      // reading never drains it.
      c.terminateSilently();
    }
  }

  @Override
  public InetSocketAddress localAddress() {
    synchronized (lock) {
      if (localAddress == null) {
        throw new IllegalStateException("server not started");
      }
      return localAddress;
    }
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
   * Closes the server gracefully, as the class documentation says, and returns once it is closed.
   * Idempotent: a concurrent or later call waits for the first one to finish.
   *
   * <p>In a handler of this server (a call that closes its own server, on any strategy), waiting
   * would wait for that very call to finish, and on a selector thread would stall its
   * connections for the whole {@code drainTimeout}. There it stops accepting, hands the drain to a
   * thread named {@code thrift-nio-grizzly-close-PORT} and returns at once; {@link #isRunning()}
   * is then false while calls may still be finishing.
   */
  @Override
  public void close() {
    boolean inCall = CallSequencer.inCallOf(callPath);
    boolean closedByOther = false;
    synchronized (lock) {
      if (state == State.NEW) {
        // Never started: what the server owns (a transport handed over with shutdownOnClose, its
        // own worker pool) is released all the same.
        state = State.CLOSED;
        transport = suppliedTransport;
        releaseResources();
        closed.countDown();
        return;
      }
      if (state != State.RUNNING) {
        closedByOther = true;
      } else {
        state = State.CLOSING;
      }
    }
    if (closedByOther) {
      if (!inCall) {
        awaitClosedByOther(); // not under the lock: the closing thread takes it to finish
      }
      return;
    }
    if (inCall) {
      guard.refuseNew();
      serverFilter.drain();
      Thread closer = new Thread(this::finishClose, THREAD_PREFIX + "-close-" + localAddress.getPort());
      // Not a daemon: the close is bounded in time and should complete, like one on any thread.
      closer.start();
      return;
    }
    finishClose();
  }

  private void finishClose() {
    try {
      drainAndClose();
    } finally {
      synchronized (lock) {
        state = State.CLOSED;
      }
      closed.countDown();
    }
  }

  private void awaitClosedByOther() {
    // Another thread runs the close; wait for it, bounded like close itself.
    try {
      closed.await(config.drainTimeout().toMillis() + 5_000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void drainAndClose() {
    long deadline = System.nanoTime() + config.drainTimeout().toNanos();
    guard.refuseNew();
    serverFilter.drain();
    try {
      transport.unbind(serverConnection);
    } catch (RuntimeException e) {
      log.warn("Could not unbind {}", localAddress, e);
    }
    for (Connection<?> c : new ArrayList<>(guard.connections())) {
      serverFilter.drain(c);
    }
    boolean interrupted = false;
    try {
      if (!guard.awaitAllClosed(deadline)) {
        List<Connection<?>> left = new ArrayList<>(guard.connections());
        int calls = 0;
        for (Connection<?> c : left) {
          calls += ThriftServerFilter.inFlight(c);
        }
        log.warn(
            "Drain timeout {} ms passed with {} calls in flight on {} connections; closing them",
            config.drainTimeout().toMillis(),
            calls,
            left.size());
        for (Connection<?> c : left) {
          c.terminateSilently();
        }
      }
    } catch (InterruptedException e) {
      interrupted = true;
      for (Connection<?> c : new ArrayList<>(guard.connections())) {
        c.terminateSilently();
      }
    }
    releaseResources();
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    log.info("Grizzly Thrift server on {} closed ({})", localAddress, counters.snapshot());
  }

  private void releaseResources() {
    if (timer != null) {
      timer.shutdownNow();
    }
    if (transport != null && ownsTransport) {
      try {
        transport.shutdownNow();
      } catch (IOException | RuntimeException e) {
        log.warn("Error shutting down the Grizzly transport", e);
      }
    }
    if (workerPool != null) {
      workerPool.shutdownNow();
    }
    if (callWorker != null && callWorker != config.workerExecutor()) {
      // The drain is over: tasks that never ran hold requests no call will release.
      for (Runnable never : ((ExecutorService) callWorker).shutdownNow()) {
        CallSequencer.abandon(never);
      }
    }
  }

  /**
   * Builds a {@link GrizzlyThriftServer}. Besides the {@linkplain ServerBuilder shared settings},
   * a caller may supply its own {@link TCPNIOTransport}.
   */
  public static final class Builder extends ServerBuilder<Builder> {
    private TCPNIOTransport transport;
    private boolean ownsTransport;

    private Builder() {}

    /**
     * Serves on a caller's transport instead of one created by the server. If the transport is
     * not yet started, the server configures it (IO strategy, selector runners, worker pool,
     * write queue limit) and starts it; a started transport is used as it is, with its own
     * strategy and pools. The server binds its own listening connection on it and sets its filter
     * chain on that connection only. Default: none (the server creates and owns its transport).
     *
     * @param transport the transport
     * @param shutdownOnClose whether {@link GrizzlyThriftServer#close()} shuts the transport down;
     *     when {@code false} only this server's connections are closed
     * @return this builder
     */
    public Builder transport(TCPNIOTransport transport, boolean shutdownOnClose) {
      this.transport = transport;
      this.ownsTransport = shutdownOnClose;
      return this;
    }

    /**
     * Validates the settings and creates the server, not yet started.
     *
     * @throws IllegalArgumentException if a value is out of range
     * @throws IllegalStateException if a required value is missing or two values conflict, or TLS
     *     asks for the OPENSSL provider
     */
    @Override
    public GrizzlyThriftServer build() {
      ServerConfig config = config();
      return new GrizzlyThriftServer(this, config);
    }
  }
}
