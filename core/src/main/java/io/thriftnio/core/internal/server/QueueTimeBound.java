package io.thriftnio.core.internal.server;

import io.thriftnio.core.ServerBuilder;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Whether a call that waited to start must be shed instead of run: the server's default bound on
 * queue time under overload, after CoDel (controlled delay). A short queue that comes and goes is a
 * burst and is served; a queue that stands for a whole interval is overload, and then every call
 * that waited longer than the target is answered {@code not run} at the moment it would start, so
 * the calls that do run waited at most about the target and finish while their callers still wait
 * for them. Without it a server offered more than it can run keeps a queue as long as its callers'
 * deadlines: every call it runs has waited almost the whole deadline, and its reply comes after the
 * caller gave up (goodput falls to nothing at 1.5x capacity).
 *
 * <pre>
 *   sample = the time a call waited, when it starts
 *   a sample below the target, a queue seen empty,
 *     or no call started for an interval:              the standing-queue clock stops
 *   samples at or above the target for a whole interval: overloaded
 *   overloaded: a sample at or above the target is shed
 *   no sample at or above the target for a whole interval: not overloaded any more
 * </pre>
 *
 * <p>Where the queue is: a {@code WORKER} server's calls wait for a worker, and the server keeps
 * one bound for all its connections; on {@code SAME_THREAD} and {@code LEADER_FOLLOWER} a
 * connection's calls wait behind each other on its reading thread, and each connection keeps its
 * own. There the first call of a read batch gives no sample (it waited in the socket, which the
 * server cannot see), and a batch of a single call counts as a queue seen empty.
 *
 * <p>Pure: the time is given to every method; no thread, no timer. Thread-safe without a lock: the
 * fields are volatile and a lost update between two threads that sample at the same instant moves a
 * clock by one call, which the rule tolerates.
 */
final class QueueTimeBound {

  /** The default target: a call that waited this long under overload is shed. */
  static final Duration DEFAULT_TARGET = ServerBuilder.DEFAULT_QUEUE_TIME_TARGET;

  /** How long a queue must stand, or be gone, before the bound turns on, or off. */
  static final Duration DEFAULT_INTERVAL = Duration.ofMillis(100);

  private static final long NONE = Long.MIN_VALUE;

  private final long targetNanos;
  private final long intervalNanos;

  /** When the samples began to stay at or above the target; {@link #NONE} when they do not. */
  private volatile long firstLongNanos = NONE;

  /** When the last sample was taken. */
  private volatile long lastSampleNanos = NONE;

  /** When the last sample at or above the target was taken. */
  private volatile long lastLongNanos = NONE;

  /** Whether the last sample was at or above the target with calls waiting behind it. */
  private volatile boolean lastLong;

  /** Shedding: the queue stood for an interval and has not been gone for one since. */
  private volatile boolean overloaded;

  /** When {@link #overloaded} last turned on, for the refusal's message. */
  private volatile long overloadedSinceNanos;

  QueueTimeBound(long targetNanos, long intervalNanos) {
    if (targetNanos <= 0 || intervalNanos <= 0) {
      throw new IllegalArgumentException(
          "target " + targetNanos + " ns and interval " + intervalNanos + " ns (expected: > 0)");
    }
    this.targetNanos = targetNanos;
    this.intervalNanos = intervalNanos;
  }

  /** With the defaults ({@link #DEFAULT_TARGET}, {@link #DEFAULT_INTERVAL}). */
  static QueueTimeBound defaults() {
    return new QueueTimeBound(DEFAULT_TARGET.toNanos(), DEFAULT_INTERVAL.toNanos());
  }

  /**
   * A call that waited {@code waitedNanos} is about to start at {@code nowNanos}; {@code
   * othersWaiting}: whether other calls wait behind it (where that is known; {@code true} where it
   * is not). A long wait with none behind is no standing queue (a thread that was late to run, a
   * burst's last call): it runs and restarts the clock.
   *
   * @return whether it must be shed ({@code not run}) instead
   */
  boolean shed(long waitedNanos, long nowNanos, boolean othersWaiting) {
    long previous = lastSampleNanos;
    lastSampleNanos = nowNanos;
    if (waitedNanos < targetNanos) {
      lastLong = false;
      firstLongNanos = NONE;
      if (overloaded && nowNanos - lastLongNanos >= intervalNanos) {
        overloaded = false;
      }
      return false;
    }
    if (!othersWaiting) {
      emptied(nowNanos);
      return false;
    }
    lastLongNanos = nowNanos;
    lastLong = true;
    if (overloaded) {
      return true;
    }
    long first = firstLongNanos;
    if (first == NONE || nowNanos - previous >= intervalNanos) {
      firstLongNanos = nowNanos; // nothing started for an interval: no queue stood meanwhile
      return false;
    }
    if (nowNanos - first < intervalNanos) {
      return false;
    }
    overloadedSinceNanos = nowNanos;
    overloaded = true;
    return true;
  }

  /** {@link #shed(long, long, boolean)} for a call with others waiting behind it. */
  boolean shed(long waitedNanos, long nowNanos) {
    return shed(waitedNanos, nowNanos, true);
  }

  /**
   * Whether a long wait for a worker pool's thread is a standing queue: calls wait behind the one
   * about to start and more than half of the pool's workers are busy. With most workers idle the
   * wait came from threads that did not get a CPU in time (a starved host, a paused JVM), not from
   * a saturated pool, and shedding would throw work away that the idle workers are about to run.
   * Half, not all: a worker between two calls is not busy for a moment even when the pool is
   * saturated.
   *
   * @param queueEmpty whether the pool's queue is empty
   * @param busyWorkers the workers running a call, this one included
   * @param maxWorkers the pool's maximum
   */
  static boolean standingQueue(boolean queueEmpty, int busyWorkers, int maxWorkers) {
    return !queueEmpty && busyWorkers * 2 > maxWorkers;
  }

  /**
   * Whether a call that arrives at {@code nowNanos}, while calls wait, must be refused at once
   * instead of joining them: the bound sheds, the call that started last had waited past the target
   * with others behind it, and it started less than an interval ago. Such a call would wait past
   * the target too and be shed when it starts; refused on arrival it costs no hand-over to a
   * worker, no wake-up and no write of its own (its reply leaves with the read batch's). The calls
   * already queued still run, or are shed, when they start; once one starts under the target,
   * arrivals join the queue again, so the queue keeps about the target's length. With no call
   * started for an interval (every worker held by long calls) arrivals queue and the rule of {@link
   * #shed} judges them when they start.
   */
  boolean refusesArrivals(long nowNanos) {
    return overloaded && lastLong && nowNanos - lastSampleNanos < intervalNanos;
  }

  /** The queue was seen empty at {@code nowNanos}: a standing queue, if any, has ended. */
  void emptied(long nowNanos) {
    lastLong = false;
    firstLongNanos = NONE;
    if (overloaded && nowNanos - lastLongNanos >= intervalNanos) {
      overloaded = false;
    }
  }

  /** The target, in nanoseconds. */
  long targetNanos() {
    return targetNanos;
  }

  /** Whether it sheds now. */
  boolean overloaded() {
    return overloaded;
  }

  /** For a refusal's message: {@code over the queue-time target 5 ms, overloaded for 340 ms}. */
  String describe(long nowNanos) {
    return "over the queue-time target "
        + millis(targetNanos)
        + ", overloaded for "
        + millis(Math.max(0, nowNanos - overloadedSinceNanos));
  }

  private static String millis(long nanos) {
    long ms = TimeUnit.NANOSECONDS.toMillis(nanos);
    return ms > 0 || nanos == 0 ? ms + " ms" : TimeUnit.NANOSECONDS.toMicros(nanos) + " us";
  }
}
