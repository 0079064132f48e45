package io.thriftnio.core.internal.server;

import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.internal.AdaptiveLimit;
import io.thriftnio.core.internal.EveryPowerOfTwo;
import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.util.internal.Checks;
import io.thriftnio.core.util.internal.ServerCounters;
import io.thriftnio.core.wire.Envelope;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * What every connection of one server shares on its call path: the invoker, where calls run, the
 * counters, the per-connection limit and the overload log's thinning. Immutable apart from the
 * counters. Not part of the API.
 */
public final class CallPath {
  final ProcessorInvoker invoker;
  final Executor worker;

  /**
   * How often a server whose calls on the reading thread may block ({@code LEADER_FOLLOWER}) looks
   * for such a call that holds replies written ahead of it in its read batch: they leave after one
   * to two of these, instead of waiting for the call, while the replies of calls that end sooner
   * leave together at the end of their batch.
   */
  public static final Duration INLINE_STALL_TICK = Duration.ofMillis(1);

  /**
   * Flushes the replies ahead of a call on the reading thread that runs long, where such a call may
   * block it ({@code LEADER_FOLLOWER}, whose selector moves on to a follower); {@code null} where
   * it must not ({@code SAME_THREAD}: replies leave once per batch) or calls run on workers.
   */
  final InlineStallWatch inlineStalls;

  /**
   * Hands the calls of an IO thread's pass to {@link #worker} a few at a time; {@code null} where
   * each call goes on its own (an executor that is not the server's own pool, or no worker).
   */
  final WorkerHandOff handOff;

  /**
   * How many calls run at once on the server's own threads while they compute ({@link RunGate}):
   * its {@link #worker} pool, or its leader-follower reading threads; {@code null} where every
   * thread runs calls freely (a caller's executor, {@code SAME_THREAD}, the setting off, or no
   * measure on this system).
   */
  final RunGate runGate;

  /**
   * {@code LEADER_FOLLOWER} with {@link #runGate}: how long a read batch waits for its turn to run
   * before its calls are answered {@code not run}: a fifth of the queue-time target (1 ms by
   * default). Meanwhile the connection's later requests wait unread in its socket, where neither
   * the bound nor their deadlines can see them (a deadline counts from when its request is read):
   * with half the target (2.5 ms), up to 64 calls in a 2-second level at twice a CPU-bound
   * handler's capacity ran after their callers' deadlines, with a fifth none in five runs; a tenth
   * refused up to 49 calls at half capacity. {@link Long#MAX_VALUE} (the calls' own deadlines) with
   * the target off.
   */
  final long turnWaitNanos;

  final ServerCounters counters;
  final int maxCallsInFlight;
  final EveryPowerOfTwo overloadLog = new EveryPowerOfTwo();
  final TConfiguration headerConfiguration;

  /** How long a call may wait for {@link #worker} to start it, in nanoseconds. */
  final long startTimeoutNanos;

  /** How long a call may go unanswered after its request was read, in nanoseconds; 0 when off. */
  final long handlerTimeoutNanos;

  /** The server's connection listeners, told before each call; {@code null} if none. */
  final ConnectionEvents events;

  /** The server's adaptive bound on calls in progress; {@code null} if none. */
  final AdaptiveLimit limit;

  /**
   * The queue-time bound the {@code WORKER} server's connections share ({@link QueueTimeBound});
   * {@code null} when calls run on the reading thread (each connection keeps its own) or the bound
   * is off.
   */
  private final QueueTimeBound sharedQueueBound;

  /** The queue-time target in nanoseconds; 0 when off. */
  private final long queueTargetNanos;

  /** The invokers of protocols requests name (THeader's), made when first named. */
  private final Map<TProtocolFactory, ProcessorInvoker> byProtocol = new ConcurrentHashMap<>();

  /**
   * The call path of a server, or of a handler in a pipeline of the user's: {@link #builder}'s
   * defaults are the latter's.
   *
   * @param b the settings
   */
  private CallPath(Builder b) {
    ProcessorInvoker invoker = b.invoker;
    Executor worker = b.worker;
    int maxCallsInFlight = b.maxCallsInFlight;
    this.limit = b.limit;
    this.queueTargetNanos =
        CallDeadlines.nanos(Checks.nonNegative("queueTimeTarget", b.queueTimeTarget));
    this.sharedQueueBound = worker != null && queueTargetNanos > 0 ? newQueueBound() : null;
    this.events = b.events;
    this.inlineStalls =
        b.inlineStallTick == null || worker != null
            ? null
            : new InlineStallWatch(Checks.positive("inlineStallTick", b.inlineStallTick));
    this.invoker = Objects.requireNonNull(invoker, "invoker");
    this.worker = worker;
    this.handOff =
        b.handOff && worker instanceof ThreadPoolExecutor
            ? new WorkerHandOff(
                worker,
                ((ThreadPoolExecutor) worker).getMaximumPoolSize(),
                CallSequencer::refuse,
                WorkerHandOff.TICK,
                WorkerHandOff.BUDGET)
            : null;
    this.runGate =
        b.runGateThreads > 0
            ? RunGate.forWorkers(b.runGateThreads, queueCapacity(worker), this::resume)
            : null;
    this.turnWaitNanos = queueTargetNanos > 0 ? queueTargetNanos / 5 : Long.MAX_VALUE;
    this.counters = Objects.requireNonNull(b.counters, "counters");
    if (maxCallsInFlight <= 0) {
      throw new SettingException("maxCallsInFlight", maxCallsInFlight, "> 0");
    }
    this.maxCallsInFlight = maxCallsInFlight;
    this.startTimeoutNanos =
        CallDeadlines.nanos(Checks.positive("workerStartTimeout", b.workerStartTimeout));
    this.handlerTimeoutNanos =
        CallDeadlines.nanos(Checks.nonNegative("handlerTimeout", b.handlerTimeout));
    int max = invoker.maxFrameSize();
    this.headerConfiguration = new TConfiguration(max, max, TConfiguration.DEFAULT_RECURSION_DEPTH);
  }

  /**
   * The settings of a call path, each with the default a handler in a user's own pipeline has
   * (Netty's {@code ThriftServerHandler}, Grizzly's {@code ThriftServerFilter}); a server sets them
   * from its {@code ServerConfig}.
   *
   * @param invoker runs the processor
   * @param counters the server's counters, or the handler's own
   */
  public static Builder builder(ProcessorInvoker invoker, ServerCounters counters) {
    return new Builder(invoker, counters);
  }

  /** The settings of a {@link CallPath}; see {@link #builder}. */
  public static final class Builder {
    private final ProcessorInvoker invoker;
    private final ServerCounters counters;
    private Executor worker;
    private boolean handOff;
    private int maxCallsInFlight = ServerBuilder.DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CONNECTION;
    private Duration workerStartTimeout = ServerBuilder.DEFAULT_WORKER_START_TIMEOUT;
    private Duration handlerTimeout = Duration.ZERO;
    private ConnectionEvents events;
    private Duration inlineStallTick;
    private int runGateThreads;
    private AdaptiveLimit limit;
    private Duration queueTimeTarget = QueueTimeBound.DEFAULT_TARGET;

    private Builder(ProcessorInvoker invoker, ServerCounters counters) {
      this.invoker = invoker;
      this.counters = counters;
    }

    /**
     * Runs each call ({@code IoStrategy.WORKER}). Default: {@code null}, which runs it on the
     * thread that delivered the request ({@code SAME_THREAD}, and Grizzly's {@code
     * LEADER_FOLLOWER}).
     */
    public Builder worker(Executor worker) {
      this.worker = worker;
      return this;
    }

    /**
     * Whether the {@link #worker} may run several short calls of one IO thread's pass per hand-over
     * ({@code WorkerHandOff}), on connections whose IO thread runs tasks after each pass: for a
     * server's own pool, a {@code ThreadPoolExecutor} whose threads and queue it counts. Default:
     * {@code false}, a task per call.
     */
    public Builder batchHandOff(boolean handOff) {
      this.handOff = handOff;
      return this;
    }

    /**
     * Runs at most about one call per processor at once while the calls compute ({@code RunGate},
     * {@code ServerBuilder.boundComputingCalls}), of the server's own {@code threads} that run them
     * (its {@code WORKER} pool, or its {@code LEADER_FOLLOWER} threads). Default: 0, unbounded.
     */
    public Builder runGate(int threads) {
      this.runGateThreads = threads;
      return this;
    }

    /**
     * Calls of one connection dispatched and not yet answered, at most; above it the connection is
     * not read from. Default: {@link ServerBuilder#DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CONNECTION}.
     */
    public Builder maxCallsInFlight(int maxCallsInFlight) {
      this.maxCallsInFlight = maxCallsInFlight;
      return this;
    }

    /**
     * How long a call may wait for the {@link #worker} to start it before it is answered as an
     * overload (see {@code ServerBuilder.workerStartTimeout}). Default: {@link
     * ServerBuilder#DEFAULT_WORKER_START_TIMEOUT}.
     */
    public Builder workerStartTimeout(Duration workerStartTimeout) {
      this.workerStartTimeout = workerStartTimeout;
      return this;
    }

    /**
     * How long a call may go unanswered after its request was read before it is answered as timed
     * out (see {@code ServerBuilder.handlerTimeout}). Default: {@link Duration#ZERO}, no bound.
     */
    public Builder handlerTimeout(Duration handlerTimeout) {
      this.handlerTimeout = handlerTimeout;
      return this;
    }

    /**
     * The server's connection listeners, whose {@code beforeCall} runs on the call's thread before
     * each call of a connection that has a {@linkplain ServerConnection#registration()
     * registration}. Default: {@code null}, none.
     */
    public Builder events(ConnectionEvents events) {
      this.events = events;
      return this;
    }

    /**
     * Where a call run on the reading thread (no {@link #worker}) may block it, as {@code
     * LEADER_FOLLOWER}'s may: how often such calls are looked at, so that the replies written ahead
     * of one that runs long leave after one to two ticks ({@link #INLINE_STALL_TICK} on a server).
     * Default: {@code null}, where such calls must not block.
     */
    public Builder inlineStallTick(Duration inlineStallTick) {
      this.inlineStallTick = inlineStallTick;
      return this;
    }

    /**
     * The server's adaptive bound on calls in progress (see {@code ServerBuilder.adaptiveLimit}).
     * Default: {@code null}, none.
     */
    public Builder limit(AdaptiveLimit limit) {
      this.limit = limit;
      return this;
    }

    /**
     * Under overload, a call that waited longer than this to start is answered {@code not run}
     * ({@link QueueTimeBound}); {@link Duration#ZERO} turns the bound off. Default: {@link
     * ServerBuilder#DEFAULT_QUEUE_TIME_TARGET}.
     */
    public Builder queueTimeTarget(Duration queueTimeTarget) {
      this.queueTimeTarget = queueTimeTarget;
      return this;
    }

    /**
     * The call path.
     *
     * @throws SettingException if a value is out of range
     */
    public CallPath build() {
      return new CallPath(this);
    }
  }

  /**
   * The invoker of a request that came in {@code envelope}: the server's, or one in the protocol
   * the request names ({@link Envelope#protocol()}), so that its reply is in the caller's protocol.
   */
  ProcessorInvoker invokerFor(Envelope envelope) {
    TProtocolFactory protocol = envelope.protocol();
    return protocol == null ? invoker : byProtocol.computeIfAbsent(protocol, this::protocolInvoker);
  }

  private ProcessorInvoker protocolInvoker(TProtocolFactory protocol) {
    // The server's own factory when it is of the same class: it keeps the user's settings.
    Class<?> named = protocol.getClass();
    return invoker.inputProtocolFactory().getClass() == named
            && invoker.outputProtocolFactory().getClass() == named
        ? invoker
        : invoker.withProtocol(protocol);
  }

  /**
   * Hands a call that waited in the {@link #runGate}'s queue to the worker pool, for a permit that
   * came free where it may not run; a pool that refuses it has it answered {@code not run}.
   */
  private void resume(Runnable call) {
    try {
      worker.execute(call);
    } catch (RejectedExecutionException e) {
      CallSequencer.refuse(call, e);
    }
  }

  /**
   * How many calls may wait for a turn to compute in the {@link #runGate}: as many as may wait in
   * the server's pool's queue ({@code workerQueueCapacity}); no bound without a pool.
   */
  private static int queueCapacity(Executor worker) {
    if (worker instanceof ThreadPoolExecutor pool) {
      return pool.getQueue().size() + pool.getQueue().remainingCapacity();
    }
    return Integer.MAX_VALUE;
  }

  /**
   * The queue-time bound of a new connection: the server's on {@code WORKER}, its own where calls
   * run on the reading thread; {@code null} when off.
   */
  QueueTimeBound queueBoundFor() {
    if (queueTargetNanos == 0) {
      return null;
    }
    return worker != null ? sharedQueueBound : newQueueBound();
  }

  private QueueTimeBound newQueueBound() {
    return new QueueTimeBound(queueTargetNanos, QueueTimeBound.DEFAULT_INTERVAL.toNanos());
  }

  /** The sequencer of a new connection. */
  public CallSequencer open(ServerConnection connection) {
    return new CallSequencer(this, connection);
  }

  /** The server's counters. */
  public ServerCounters counters() {
    return counters;
  }

  /** The invoker. */
  public ProcessorInvoker invoker() {
    return invoker;
  }

  /** Whether calls run on a worker executor ({@code WORKER}) rather than the reading thread. */
  public boolean runsOnWorkers() {
    return worker != null;
  }
}
