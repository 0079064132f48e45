package io.thriftnio.core.internal.server;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands the calls an IO thread reads in one pass over its connections to a {@code WORKER} server's
 * pool a few at a time, so that one woken worker runs several short calls one after another instead
 * of each call waking a worker of its own.
 *
 * <p>Why: on Netty the event loop writes every reply, so a worker has little to do per call; with a
 * task per call, each call woke a parked worker and the worker parked again after it (a profile of
 * the efficiency bench's {@code tsocket-40} on {@code netty/worker}: 1.6 context switches and 3.2
 * futex calls per call, the handler's own work a small part of the server's CPU; issue 41).
 *
 * <pre>
 *   IO thread, one pass:  read a, b, c, d, e        (add: kept in the pass, nothing woken)
 *   end of the pass:      [a b c] [d e] to the pool  (chunks of about {@code budget} of work)
 *   worker 1:             a, b, c                     (one wake-up for three calls)
 *   a call runs long:     the watch sees no call start for a tick; the calls behind it go to the
 *                         pool one task each (at most two ticks late)
 * </pre>
 *
 * <p>How many calls a chunk holds follows the calls' smoothed time on their thread ({@link #ran}):
 * about {@code budget} of work, so a chunk of calls that take longer than {@code budget} is one
 * call, handed over as before; a pool of many workers still runs the chunks of a large pass side by
 * side. Where the IO thread cannot run a task after its pass, or the call is dispatched elsewhere
 * (a request that waited for the in-flight limit), the call goes to the pool on its own.
 *
 * <p>A chunk goes to the pool only when a worker is free to take it at once (fewer of this
 * hand-off's tasks, running or queued, than the pool has threads; every task of the server's own
 * pool is one); while every worker is spoken for each call goes alone, so that the queue's bound
 * ({@code workerQueueCapacity}) still counts every call that waits. The calls behind the running
 * one in a chunk are in a worker's hands, as a task taken from the queue is, for at most two ticks.
 * A pool shut down with tasks queued gives their calls back ({@link #callsIn}) for their requests
 * to be released.
 *
 * <p>Thread-safety: a pass's calls are confined to their IO thread; a chunk's calls are claimed one
 * at a time with an atomic index, by its worker or, all that are left, by the watch; the smoothed
 * time is a racy average (a lost update moves it by one sample). No lock.
 */
final class WorkerHandOff {

  private static final Logger log = LoggerFactory.getLogger(WorkerHandOff.class);

  /** How often running chunks are looked at for a call that holds others behind it. */
  static final Duration TICK = Duration.ofMillis(1);

  /** About how much work one chunk carries. */
  static final Duration BUDGET = Duration.ofNanos(50_000);

  /** The most calls one chunk carries, however short they are. */
  static final int MAX_CHUNK = 64;

  private final Executor pool;
  private final int workers;
  private final BiConsumer<Runnable, RejectedExecutionException> refused;
  private final long tickNanos;
  private final long budgetNanos;

  /**
   * Each IO thread's pass, by thread: a map of this server's (not a {@code ThreadLocal}), so that
   * the passes go with the server when IO threads outlive it (an event loop group of the user's).
   */
  private final ConcurrentHashMap<Thread, Pass> passes = new ConcurrentHashMap<>();

  private final Set<Chunk> running = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean ticking = new AtomicBoolean();
  private final Runnable tick = this::tick;

  /** The calls' time on their thread, smoothed (1/16 of each sample), in nanoseconds. */
  private volatile long smoothedNanos;

  /**
   * Tasks of ours (chunks and calls handed over alone) given to the pool and not yet ended: each
   * holds one of its threads or one of its queue's places. Every task of the pool is ours: it is
   * the server's own.
   */
  private final AtomicInteger committed = new AtomicInteger();

  /**
   * @param pool where the calls run
   * @param workers the pool's threads, at most
   * @param refused answers a call the pool refused; called on the thread that handed it over
   * @param tick how often running chunks are looked at: a call behind one that runs long waits one
   *     to two ticks more
   * @param budget about how much work one chunk carries
   */
  WorkerHandOff(
      Executor pool,
      int workers,
      BiConsumer<Runnable, RejectedExecutionException> refused,
      Duration tick,
      Duration budget) {
    this.pool = pool;
    this.workers = workers;
    this.refused = refused;
    this.tickNanos = CallDeadlines.nanos(tick);
    this.budgetNanos = CallDeadlines.nanos(budget);
  }

  /**
   * Whether calls are short enough now for more than one to share a hand-over; when not, the caller
   * hands each call over itself ({@link #toPool}).
   */
  boolean batching() {
    return chunkSize(smoothedNanos, budgetNanos) > 1;
  }

  /**
   * How many calls one chunk carries: about {@code budgetNanos} of calls that take {@code
   * callNanos} each, between 1 and {@link #MAX_CHUNK}.
   */
  static int chunkSize(long callNanos, long budgetNanos) {
    if (callNanos <= 0) {
      return MAX_CHUNK;
    }
    return (int) Math.max(1, Math.min(MAX_CHUNK, budgetNanos / callNanos));
  }

  /**
   * On an IO thread, during its pass: keeps {@code call} for the hand-over at the end of the pass.
   *
   * @param afterPass runs a task on this IO thread after its current pass
   */
  void add(Runnable call, Executor afterPass) {
    Thread ioThread = Thread.currentThread();
    Pass pass = passes.get(ioThread);
    if (pass == null) {
      pass = new Pass();
      passes.put(ioThread, pass); // only this thread puts its own
    }
    pass.calls.add(call);
    if (pass.calls.size() == 1) {
      afterPass.execute(pass.handOver);
    }
  }

  /** One call's time on its thread, from its start to its return, in nanoseconds. */
  void ran(long nanos) {
    long s = smoothedNanos;
    smoothedNanos = s + ((nanos - s) >> 4);
  }

  /**
   * Whether a chunk handed over now finds a worker free to take it at once: fewer of our tasks are
   * running or queued than the pool has threads. A chunk that waited in the queue would hold
   * several calls in one of its places, past the bound {@code workerQueueCapacity} sets on calls
   * waiting; so when every worker is spoken for each call goes alone and the queue counts it.
   */
  private boolean aWorkerIsFree() {
    return committed.get() < workers;
  }

  /** Hands {@code call} to the pool on its own; a refusal is answered by {@code refused}. */
  void toPool(Runnable call) {
    committed.incrementAndGet();
    try {
      pool.execute(new Alone(call));
    } catch (RejectedExecutionException e) {
      committed.decrementAndGet();
      refused.accept(call, e);
    }
  }

  /**
   * The calls a task of the pool carries that never started, for a pool shut down with tasks queued
   * ({@code shutdownNow()}): a chunk's calls not yet claimed, a call handed over alone, or the task
   * itself when it is not ours.
   */
  static List<Runnable> callsIn(Runnable task) {
    if (task instanceof Alone) {
      return List.of(((Alone) task).call);
    }
    if (task instanceof WorkerHandOff.Chunk) {
      return ((Chunk) task).unclaimed();
    }
    return List.of(task);
  }

  private void handOver(ArrayList<Runnable> pass) {
    Runnable[] calls = pass.toArray(new Runnable[0]);
    pass.clear(); // before any call is handed over: a refusal's reply must not find it half done
    int size = chunkSize(smoothedNanos, budgetNanos);
    for (int from = 0; from < calls.length; from += size) {
      int to = Math.min(calls.length, from + size);
      if (to - from == 1 || !aWorkerIsFree()) {
        for (int i = from; i < to; i++) {
          toPool(calls[i]);
        }
        continue;
      }
      Chunk chunk = new Chunk(Arrays.copyOfRange(calls, from, to));
      committed.incrementAndGet();
      try {
        pool.execute(chunk);
      } catch (RejectedExecutionException e) {
        committed.decrementAndGet();
        for (Runnable call : chunk.calls) {
          refused.accept(call, e);
        }
      }
    }
  }

  private void watch(Chunk chunk) {
    running.add(chunk);
    if (ticking.compareAndSet(false, true)) {
      CallDeadlines.schedule(tick, tickNanos);
    }
  }

  private void tick() {
    for (Chunk chunk : running) {
      int started = chunk.started;
      if (started == chunk.seenStarted) {
        running.remove(chunk);
        chunk.handOutTheRest(); // no call started for a tick: the one running holds the rest
      } else {
        chunk.seenStarted = started;
      }
    }
    if (running.isEmpty()) {
      ticking.set(false);
      // A chunk that started meanwhile either saw ticking false and scheduled the next tick
      // itself, or is seen here.
      if (running.isEmpty() || !ticking.compareAndSet(false, true)) {
        return;
      }
    }
    CallDeadlines.schedule(tick, tickNanos);
  }

  /** A call handed to the pool on its own. */
  private final class Alone implements Runnable {
    final Runnable call;

    Alone(Runnable call) {
      this.call = call;
    }

    @Override
    public void run() {
      try {
        call.run();
      } finally {
        committed.decrementAndGet();
      }
    }
  }

  /** The calls of one IO thread's current pass; confined to that thread. */
  private final class Pass {
    final ArrayList<Runnable> calls = new ArrayList<>();
    final Runnable handOver = () -> handOver(calls);
  }

  /** Calls that one worker runs in order, unless the watch hands out the rest. */
  private final class Chunk implements Runnable {
    private static final VarHandle NEXT;

    static {
      try {
        NEXT = MethodHandles.lookup().findVarHandle(Chunk.class, "next", int.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    final Runnable[] calls;

    /** The index of the next call to claim; {@code calls.length} or more once none is left. */
    @SuppressWarnings("unused") // through NEXT
    private volatile int next;

    /** Calls started so far, written by the worker. */
    volatile int started;

    /** {@link #started} at the watch's last look; the watch's own. */
    int seenStarted;

    Chunk(Runnable[] calls) {
      this.calls = calls;
    }

    @Override
    public void run() {
      watch(this);
      try {
        for (int i; (i = (int) NEXT.getAndAdd(this, 1)) < calls.length; ) {
          started = i + 1;
          try {
            calls[i].run();
          } catch (RuntimeException e) {
            // A call answers its own failures; this is a bug, and the calls behind it still run.
            log.error("A call handed to the worker pool threw", e);
          }
        }
      } finally {
        running.remove(this);
        committed.decrementAndGet();
        handOutTheRest(); // nothing left, unless a call threw an Error
      }
    }

    /** The calls no worker claimed, claimed now for the caller. */
    List<Runnable> unclaimed() {
      int from = (int) NEXT.getAndSet(this, calls.length);
      return from >= calls.length
          ? List.of()
          : Arrays.asList(Arrays.copyOfRange(calls, from, calls.length));
    }

    /** Hands the calls not yet claimed to the pool, one task each. */
    void handOutTheRest() {
      int from = (int) NEXT.getAndSet(this, calls.length);
      for (int i = from; i < calls.length; i++) {
        try {
          toPool(calls[i]);
        } catch (RuntimeException e) {
          log.error("Handing a call to the worker pool failed", e);
        }
      }
    }
  }
}
