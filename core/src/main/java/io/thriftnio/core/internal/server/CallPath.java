package io.thriftnio.core.internal.server;

import io.thriftnio.core.ServerBuilder;
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
  final AdaptiveCallLimit limit;

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
   * @param invoker runs the processor
   * @param worker runs each call ({@code IoStrategy.WORKER}); {@code null} runs it on the thread
   *     that delivered the request ({@code SAME_THREAD}, and Grizzly's {@code LEADER_FOLLOWER})
   * @param counters the server's counters
   * @param maxCallsInFlight calls of one connection dispatched and not yet answered, at most; above
   *     it the connection is not read from
   */
  public CallPath(
      ProcessorInvoker invoker, Executor worker, ServerCounters counters, int maxCallsInFlight) {
    this(invoker, worker, counters, maxCallsInFlight, ServerBuilder.DEFAULT_WORKER_START_TIMEOUT);
  }

  /**
   * @param invoker runs the processor
   * @param worker runs each call ({@code IoStrategy.WORKER}); {@code null} runs it on the thread
   *     that delivered the request ({@code SAME_THREAD}, and Grizzly's {@code LEADER_FOLLOWER})
   * @param counters the server's counters
   * @param maxCallsInFlight calls of one connection dispatched and not yet answered, at most; above
   *     it the connection is not read from
   * @param workerStartTimeout how long a call may wait for {@code worker} to start it before it is
   *     answered as an overload (see {@code ServerBuilder.workerStartTimeout})
   */
  public CallPath(
      ProcessorInvoker invoker,
      Executor worker,
      ServerCounters counters,
      int maxCallsInFlight,
      Duration workerStartTimeout) {
    this(invoker, worker, counters, maxCallsInFlight, workerStartTimeout, null);
  }

  /**
   * @param invoker runs the processor
   * @param worker runs each call; {@code null} runs it on the thread that delivered the request
   * @param counters the server's counters
   * @param maxCallsInFlight calls of one connection dispatched and not yet answered, at most
   * @param workerStartTimeout how long a call may wait for {@code worker} to start it
   * @param events the server's connection listeners, whose {@code beforeCall} runs on the call's
   *     thread before each call of a connection that has a {@linkplain
   *     ServerConnection#registration() registration}; {@code null} for none
   */
  public CallPath(
      ProcessorInvoker invoker,
      Executor worker,
      ServerCounters counters,
      int maxCallsInFlight,
      Duration workerStartTimeout,
      ConnectionEvents events) {
    this(
        invoker,
        worker,
        counters,
        maxCallsInFlight,
        workerStartTimeout,
        Duration.ZERO,
        events,
        null);
  }

  /**
   * @param invoker runs the processor
   * @param worker runs each call; {@code null} runs it on the thread that delivered the request
   * @param counters the server's counters
   * @param maxCallsInFlight calls of one connection dispatched and not yet answered, at most
   * @param workerStartTimeout how long a call may wait for {@code worker} to start it
   * @param handlerTimeout how long a call may go unanswered after its request was read before it is
   *     answered as timed out (see {@code ServerBuilder.handlerTimeout}); {@link Duration#ZERO} for
   *     no bound
   * @param events the server's connection listeners; {@code null} for none
   * @param inlineStallTick where a call run on the reading thread ({@code worker} {@code null}) may
   *     block it, as {@code LEADER_FOLLOWER}'s may: how often such calls are looked at, so that the
   *     replies written ahead of one that runs long leave after one to two ticks ({@link
   *     #INLINE_STALL_TICK} on a server); {@code null} where such calls must not block
   */
  public CallPath(
      ProcessorInvoker invoker,
      Executor worker,
      ServerCounters counters,
      int maxCallsInFlight,
      Duration workerStartTimeout,
      Duration handlerTimeout,
      ConnectionEvents events,
      Duration inlineStallTick) {
    this(
        invoker,
        worker,
        counters,
        maxCallsInFlight,
        workerStartTimeout,
        handlerTimeout,
        events,
        inlineStallTick,
        null);
  }

  /**
   * As the constructor above, with {@code limit}: the server's adaptive bound on calls in progress
   * (see {@code ServerBuilder.adaptiveLimit}); {@code null} for none.
   */
  public CallPath(
      ProcessorInvoker invoker,
      Executor worker,
      ServerCounters counters,
      int maxCallsInFlight,
      Duration workerStartTimeout,
      Duration handlerTimeout,
      ConnectionEvents events,
      Duration inlineStallTick,
      AdaptiveCallLimit limit) {
    this(
        invoker,
        worker,
        counters,
        maxCallsInFlight,
        workerStartTimeout,
        handlerTimeout,
        events,
        inlineStallTick,
        limit,
        QueueTimeBound.DEFAULT_TARGET);
  }

  /**
   * As the constructor above, with {@code queueTimeTarget}: under overload, a call that waited
   * longer than this to start is answered {@code not run} ({@link QueueTimeBound}); {@link
   * Duration#ZERO} turns the bound off.
   */
  public CallPath(
      ProcessorInvoker invoker,
      Executor worker,
      ServerCounters counters,
      int maxCallsInFlight,
      Duration workerStartTimeout,
      Duration handlerTimeout,
      ConnectionEvents events,
      Duration inlineStallTick,
      AdaptiveCallLimit limit,
      Duration queueTimeTarget) {
    this.limit = limit;
    this.queueTargetNanos =
        CallDeadlines.nanos(Checks.nonNegative("queueTimeTarget", queueTimeTarget));
    this.sharedQueueBound = worker != null && queueTargetNanos > 0 ? newQueueBound() : null;
    this.events = events;
    this.inlineStalls =
        inlineStallTick == null || worker != null
            ? null
            : new InlineStallWatch(Checks.positive("inlineStallTick", inlineStallTick));
    this.invoker = Objects.requireNonNull(invoker, "invoker");
    this.worker = worker;
    this.counters = Objects.requireNonNull(counters, "counters");
    if (maxCallsInFlight <= 0) {
      throw new SettingException("maxCallsInFlight", maxCallsInFlight, "> 0");
    }
    this.maxCallsInFlight = maxCallsInFlight;
    this.startTimeoutNanos =
        CallDeadlines.nanos(Checks.positive("workerStartTimeout", workerStartTimeout));
    this.handlerTimeoutNanos =
        CallDeadlines.nanos(Checks.nonNegative("handlerTimeout", handlerTimeout));
    int max = invoker.maxFrameSize();
    this.headerConfiguration = new TConfiguration(max, max, TConfiguration.DEFAULT_RECURSION_DEPTH);
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
