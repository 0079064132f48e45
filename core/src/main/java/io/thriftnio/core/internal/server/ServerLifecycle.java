package io.thriftnio.core.internal.server;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerConfig;
import io.thriftnio.core.ServerStats;
import io.thriftnio.core.internal.AdaptiveLimit;
import io.thriftnio.core.internal.WorkerPools;
import io.thriftnio.core.sasl.ServerSasl;
import io.thriftnio.core.util.internal.ServerCounters;
import io.thriftnio.core.wire.SaslSettings;
import io.thriftnio.core.wire.WireSettings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of one server, written once for every transport: new, running, closing, closed; an
 * idempotent {@link #start()} and {@link #close()}; the graceful drain; the worker pool and the
 * SASL negotiation pool (each the server's own unless the settings give an executor, which is never
 * shut down). The transport plugs in through {@link Transport}. Not part of the API.
 *
 * <pre>
 *  NEW --start--&gt; RUNNING --close--&gt; CLOSING --drained, threads released--&gt; CLOSED
 *   |                                                                        ^
 *   +--close (releases what the server owns) / bind failure------------------+
 * </pre>
 *
 * <p>{@link #close()}: drain every connection (answer what was received, refuse what arrives as not
 * run, close once quiet; a connection accepted meanwhile drains from the start), close the
 * listening socket once the drain ends, and after {@code drainTimeout} close whatever is left
 * ({@link ServerDrain}; with a health path a connection accepted during the drain serves probes
 * only); then stop the worker pool (tasks that never ran are {@linkplain CallSequencer#abandonUnrun
 * abandoned}) and release the transport's threads. A second, concurrent close waits for the first
 * outside the lock. Called in a call of this server, or on one of its IO threads, it cannot wait
 * for the drain (which waits for that very call, or that thread): there it starts the drain of new
 * connections, hands the rest to a thread named {@code PREFIX-close-PORT}, and returns at once.
 *
 * <p>Hooks added with {@link #beforeDrain(Runnable)} run first, before the drain begins: a server
 * withdraws from discovery there while it still serves every call. With hooks, a close that cannot
 * wait hands them to the close thread too, so a hook never runs on an IO thread.
 */
public final class ServerLifecycle {

  private static final Logger log = LoggerFactory.getLogger(ServerLifecycle.class);

  /** Time allowed for connections, the worker pool and the IO threads to stop after the drain. */
  static final long SHUTDOWN_GRACE_MILLIS = 3000;

  /** What the lifecycle asks of a transport. */
  public interface Transport {
    /**
     * Creates what the server runs on (unless the caller supplied it) and binds the listening
     * socket. On failure the lifecycle calls {@link #release()}.
     *
     * @return the bound address
     * @throws java.net.BindException if the address cannot be bound, naming it
     */
    InetSocketAddress bind() throws IOException;

    /** Closes the listening socket; returns within a few seconds, closed or not. */
    void stopAccepting();

    /**
     * Starts closing the listening socket without waiting for anything: called where {@code
     * close()} cannot wait (in a call, on an IO thread), before {@link #stopAccepting()} follows on
     * the close thread. Meanwhile the registry refuses new connections. Default: nothing. Not used
     * by the drain since the listening socket stays open through it (issue 38).
     */
    default void beginStopAccepting() {}

    /** Whether the current thread is one of the IO threads the server's connections run on. */
    boolean inIoThread();

    /**
     * Releases the threads the server owns (its event loops or transport, its timer), started or
     * not. Called once.
     */
    void release();

    /** What the "listening" log line says of the server, e.g. its IO transport and strategy. */
    String describe();

    /**
     * The server's {@code toString}, in one shape for every transport ({@link
     * ServerLifecycle#describe(String, Object)}): {@code NettyThriftServer{/127.0.0.1:9090, NIO,
     * WORKER}}.
     */
    @Override
    String toString();
  }

  private enum State {
    NEW,
    RUNNING,
    CLOSING,
    CLOSED
  }

  private final String name;
  private final String threadPrefix;
  private final ServerConfig config;
  private final ServerCounters counters;
  private final ConnectionRegistry<?> registry;
  private final ThreadPoolExecutor ownWorkers;
  private final ThreadPoolExecutor ownSaslSteps;
  private final SaslSettings sasl;
  private final CallPath callPath;
  private final CompletableFuture<Void> closed = new CompletableFuture<>();
  private final Object lock = new Object();
  private final AtomicBoolean startAnnounced = new AtomicBoolean();

  @GuardedBy("lock")
  private final List<Runnable> beforeDrain = new ArrayList<>();

  /** Set once, before start or close, by the thread that builds the server. */
  private Transport transport;

  @GuardedBy("lock")
  private State state = State.NEW;

  private volatile InetSocketAddress localAddress;

  /**
   * @param name the server's name in log lines, e.g. {@code "Thrift server"}
   * @param threadPrefix the prefix of the names of the server's threads: {@code -worker-N}, {@code
   *     -close-PORT}
   * @param config the settings
   * @param counters the server's counters
   * @param registry the server's connections
   * @param handsOverPasses whether the transport's IO threads run tasks after each pass over their
   *     connections (Netty's event loops): the server's own worker pool then takes the short calls
   *     of a pass together ({@code WorkerHandOff})
   */
  public ServerLifecycle(
      String name,
      String threadPrefix,
      ServerConfig config,
      ServerCounters counters,
      ConnectionRegistry<?> registry,
      boolean handsOverPasses) {
    this.name = name;
    this.threadPrefix = threadPrefix;
    this.config = config;
    this.counters = counters;
    this.registry = registry;
    Executor worker = null;
    ThreadPoolExecutor own = null;
    if (config.ioStrategy() == IoStrategy.WORKER) {
      worker = config.workerExecutor();
      if (worker == null) {
        // Its threads start with the first call: a server never started holds none.
        own =
            WorkerPools.newBoundedPool(
                threadPrefix + "-worker", config.workerThreads(), config.workerQueueCapacity());
        worker = own;
      }
    }
    this.ownWorkers = own;
    ServerSasl serverSasl = config.sasl();
    if (serverSasl == null) {
      this.ownSaslSteps = null;
      this.sasl = null;
    } else {
      Executor steps = serverSasl.negotiationExecutor();
      // Its threads start with the first negotiation: a server never started holds none.
      this.ownSaslSteps = steps == null ? newStepPool(threadPrefix + "-sasl") : null;
      this.sasl = new SaslSettings(serverSasl, steps != null ? steps : ownSaslSteps);
    }
    this.callPath =
        CallPath.builder(ProcessorInvoker.of(config), counters)
            .worker(worker)
            .batchHandOff(handsOverPasses && own != null)
            .runGate(computeBoundThreads(config, own))
            .maxCallsInFlight(config.maxCallsInFlightPerConnection())
            .workerStartTimeout(config.workerStartTimeout())
            .handlerTimeout(config.handlerTimeout())
            .events(registry.events())
            .inlineStallTick(
                config.ioStrategy() == IoStrategy.LEADER_FOLLOWER
                    ? CallPath.INLINE_STALL_TICK
                    : null)
            .limit(
                config.adaptiveLimit() == 0
                    ? null
                    : AdaptiveLimit.forServer(config.adaptiveLimit()))
            .queueTimeTarget(config.queueTimeTarget())
            .build();
  }

  /** The transport, as {@link #transport(Transport)} set it. */
  public Transport transport() {
    return transport;
  }

  /** Sets the transport; once, before {@link #start()} or {@link #close()}. */
  public void transport(Transport transport) {
    this.transport = transport;
  }

  /**
   * The server's SASL settings, its negotiation steps on the executor the settings name or on the
   * server's own pool; {@code null} without SASL.
   */
  public SaslSettings sasl() {
    return sasl;
  }

  /**
   * The wire every connection of the server reads: its frame limit and the kinds it accepts, the
   * protocol in which a refused frame's header is read, the HTTP path, the health probe (healthy
   * while {@linkplain #isRunning() running}) and the SASL settings.
   */
  public WireSettings wireSettings() {
    return WireSettings.of(
            config.maxFrameSize(),
            config.wireKinds(),
            config.inputProtocolFactory(),
            config.httpPath())
        .withHealth(config.healthPath(), this::isRunning)
        .withSasl(sasl);
  }

  /** The call path every connection of the server shares. */
  public CallPath callPath() {
    return callPath;
  }

  /** Binds and starts serving; idempotent while running. */
  public void start() throws IOException {
    synchronized (lock) {
      if (state == State.RUNNING) {
        return;
      }
      if (state != State.NEW) {
        throw new IllegalStateException(
            "server closed: " + config.bindAddress() + "; build a new one");
      }
    }
    ConnectionEvents events = registry.events();
    if (events != null && startAnnounced.compareAndSet(false, true)) {
      // Outside the lock (a listener runs under none of ours), before the bind: it precedes
      // every connection.
      events.serverStarting(config);
    }
    synchronized (lock) {
      if (state == State.RUNNING) {
        return;
      }
      if (state != State.NEW) {
        throw new IllegalStateException(
            "server closed: " + config.bindAddress() + "; build a new one");
      }
      try {
        localAddress = transport.bind();
      } catch (IOException | RuntimeException e) {
        state = State.CLOSED;
        try {
          releaseThreads();
        } finally {
          closed.complete(null);
        }
        throw e;
      }
      state = State.RUNNING;
    }
    log.info("{}", startLine());
  }

  /** The INFO line of a start: {@code NAME listening on ADDRESS (TRANSPORT'S DESCRIPTION)}. */
  public String startLine() {
    return name + " listening on " + localAddress + " (" + transport.describe() + ")";
  }

  /**
   * A server's {@code toString}: {@code kind{address, io, strategy}}, the bound address once
   * started, else the configured one.
   *
   * @param kind the server class's simple name, e.g. {@code NettyThriftServer}
   * @param io the IO transport's name, e.g. {@code NIO} or {@code EPOLL}
   */
  public String describe(String kind, Object io) {
    InetSocketAddress bound = boundAddress();
    return kind
        + "{"
        + (bound != null ? bound : config.bindAddress())
        + ", "
        + io
        + ", "
        + config.ioStrategy()
        + '}';
  }

  /**
   * Adds a hook that {@link #close()} runs before it stops accepting and drains; hooks run once, in
   * the order added, on the closing thread. A hook that throws is logged and the close goes on.
   *
   * @return whether the hook will run: {@code false} once the close has begun
   */
  public boolean beforeDrain(Runnable hook) {
    synchronized (lock) {
      if (state == State.CLOSING || state == State.CLOSED) {
        return false;
      }
      beforeDrain.add(hook);
      return true;
    }
  }

  private void runBeforeDrainHooks() {
    List<Runnable> hooks;
    synchronized (lock) {
      hooks = new ArrayList<>(beforeDrain);
      beforeDrain.clear();
    }
    for (Runnable hook : hooks) {
      try {
        hook.run();
      } catch (RuntimeException | Error e) {
        log.warn("A before-drain hook of {} on {} threw; closing goes on", name, localAddress, e);
      }
    }
  }

  /** Whether the server is serving: started and not closing. */
  public boolean isRunning() {
    synchronized (lock) {
      return state == State.RUNNING;
    }
  }

  /** The bound address. */
  public InetSocketAddress localAddress() {
    InetSocketAddress address = localAddress;
    if (address == null) {
      throw new IllegalStateException("server not started: " + config.bindAddress());
    }
    return address;
  }

  /** The bound address, or {@code null} before {@link #start()} has bound it. */
  public InetSocketAddress boundAddress() {
    return localAddress;
  }

  /** Closes the server as the class documentation says. Idempotent; bounded in time. */
  public void close() {
    boolean cannotWait = CallSequencer.inCallOf(callPath) || transport.inIoThread();
    State before;
    boolean hooks;
    synchronized (lock) {
      before = state;
      hooks = !beforeDrain.isEmpty();
      if (before == State.NEW) {
        state = State.CLOSED;
      } else if (before == State.RUNNING) {
        state = State.CLOSING;
      }
    }
    if (before == State.NEW) {
      // Never started: what the server owns (a supplied transport handed over, its worker pool)
      // is released all the same.
      try {
        releaseThreads();
      } finally {
        closed.complete(null);
      }
      return;
    }
    if (before != State.RUNNING) {
      if (!cannotWait) {
        awaitClosedByOtherCaller(); // not under the lock: the closing thread takes it to finish
      }
      return;
    }
    if (cannotWait) {
      if (!hooks) {
        // New connections drain from now on; the closing thread drains the rest.
        new ServerDrain(config, registry, transport, localAddress).begin();
      } // else the hooks run first, on the closing thread, while the server still accepts
      Thread closer =
          new Thread(this::finishClose, threadPrefix + "-close-" + localAddress.getPort());
      // Not a daemon: the close is bounded in time and should complete, like a close() on any
      // other thread, even if the application's last thread ends meanwhile.
      closer.start();
      return;
    }
    finishClose();
  }

  private void finishClose() {
    try {
      runBeforeDrainHooks();
      new ServerDrain(config, registry, transport, localAddress).run();
      releaseThreads();
    } finally {
      synchronized (lock) {
        state = State.CLOSED;
      }
      closed.complete(null);
    }
    log.info("{} on {} closed; {}", name, localAddress, counters.snapshot(ServerStats.class));
  }

  /**
   * A server's own SASL negotiation pool, for settings that give no executor: at most max({@value
   * SaslSettings#MIN_STEP_THREADS}, cores) steps at once, {@value SaslSettings#MAX_QUEUED_STEPS}
   * waiting, then refused ({@code RejectedExecutionException}, which the decoder answers with
   * {@code ERROR} "server busy"). Its daemon threads start with the first step and end after 60 s
   * idle; the server shuts it down when it closes.
   */
  /**
   * The server's own threads that run calls, for its {@code RunGate} ({@code boundComputingCalls}):
   * its {@code WORKER} pool's, or its {@code LEADER_FOLLOWER} threads (the transport's follower
   * pool of {@code workerThreads}, when the settings give no executor); 0 for none: the setting
   * off, a caller's executor, or {@code SAME_THREAD}, whose IO threads run the calls.
   */
  private static int computeBoundThreads(ServerConfig config, ThreadPoolExecutor own) {
    if (!config.boundComputingCalls()) {
      return 0;
    }
    if (own != null) {
      return own.getMaximumPoolSize();
    }
    return config.ioStrategy() == IoStrategy.LEADER_FOLLOWER && config.workerExecutor() == null
        ? config.workerThreads()
        : 0;
  }

  private static ThreadPoolExecutor newStepPool(String name) {
    return WorkerPools.newBoundedPool(
        name,
        Math.max(SaslSettings.MIN_STEP_THREADS, Runtime.getRuntime().availableProcessors()),
        SaslSettings.MAX_QUEUED_STEPS);
  }

  private void releaseThreads() {
    if (ownSaslSteps != null) {
      // The drain is over: a step still running (an authenticator blocked on its user store) is
      // interrupted, and its connection is gone. An executor given in the settings is not ours.
      ownSaslSteps.shutdownNow();
    }
    try {
      if (ownWorkers != null) {
        // The drain is over: whatever still runs has lost its connection. Tasks that never ran
        // hold requests that no call will release.
        for (Runnable never : ownWorkers.shutdownNow()) {
          CallSequencer.abandonUnrun(never);
        }
        RunGate gate = callPath.runGate;
        if (gate != null) {
          for (Runnable never : gate.takeQueued()) { // calls that waited for a permit to run
            CallSequencer.abandonUnrun(never);
          }
        }
        try {
          ownWorkers.awaitTermination(SHUTDOWN_GRACE_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt(); // restored; the transport is released all the same
        }
      }
    } finally {
      transport.release();
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
}
