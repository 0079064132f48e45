package io.thriftnio.pool;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * How many retries a pool may make now: over a sliding window, {@code ratio × calls + floor}
 * retries, where the floor is {@code minRetriesPerSecond × window seconds}. Every call deposits,
 * every retry withdraws; a withdrawal the balance does not cover is refused and the call fails with
 * its own error. A failing fleet then sees at most {@code 1 + ratio} attempts per call (plus the
 * floor), instead of every caller multiplying its attempts at once.
 *
 * <p>The shape follows Finagle's {@code RetryBudget} (a reserve plus a share of deposits, both
 * forgotten after a time to live) and Envoy's retry budget (a share of active requests with a
 * minimum concurrency), counted here in ten slices of the window so old calls age out a slice at a
 * time rather than all at once.
 *
 * <p>Every call of every pool deposits, so a deposit takes no lock: it adds to its slice's {@link
 * LongAdder}, and the slice of a new tick takes its place in the ring by compare-and-set. A
 * withdrawal (a retry, rare) holds the budget's lock, so that concurrent retries never overdraw.
 */
final class RetryBudget {
  private static final int SLICES = 10;

  /**
   * The counts of one clock tick. Replaced whole, by compare-and-set, when its place in the ring
   * comes round again, so a deposit never waits for a lock: one that lands on a slice just replaced
   * belonged to a tick ten slices old, out of the window anyway.
   */
  private static final class Slice {
    final long tick;
    final LongAdder calls = new LongAdder();
    long retries; // guarded by the budget's lock: withdrawals are rare and must not overdraw

    Slice(long tick) {
      this.tick = tick;
    }
  }

  private final double ratio;
  private final long floor;
  private final long sliceNanos;
  private final LongSupplier clock;

  /** Held by a withdrawal, which must not overdraw; deposits take no lock. */
  private final Object lock = new Object();

  private final AtomicReferenceArray<Slice> slices = new AtomicReferenceArray<>(SLICES);
  private final LongAdder retried = new LongAdder();
  private final LongAdder refused = new LongAdder();

  RetryBudget(RetryBudgetConfig config, LongSupplier clock) {
    this.ratio = config.ratio();
    long windowNanos = config.window().toNanos();
    this.floor =
        (long) Math.min(Long.MAX_VALUE / 4, config.minRetriesPerSecond() * (windowNanos / 1e9));
    this.sliceNanos = Math.max(1, windowNanos / SLICES);
    this.clock = clock;
    long tick = tick();
    for (int i = 0; i < SLICES; i++) {
      slices.set(i, new Slice(tick - SLICES)); // every slice stale: the window starts empty
    }
  }

  private long tick() {
    return Math.floorDiv(clock.getAsLong(), sliceNanos);
  }

  /**
   * The slice of {@code tick}, put in place of an older tick's first; {@code null} when a newer
   * tick already holds the place (this caller read the clock, then lost the processor for a
   * window): its count would be out of the window by now.
   */
  private Slice slice(long tick) {
    int i = (int) Math.floorMod(tick, (long) SLICES);
    while (true) {
      Slice s = slices.get(i);
      if (s.tick == tick) {
        return s;
      }
      if (s.tick - tick > 0) {
        return null;
      }
      Slice fresh = new Slice(tick);
      if (slices.compareAndSet(i, s, fresh)) {
        return fresh;
      }
      // Another caller replaced it first: read what it put there.
    }
  }

  /** A call started: the budget grows by {@code ratio}. Lock-free; every call of every pool. */
  void deposit() {
    Slice s = slice(tick());
    if (s != null) {
      s.calls.increment();
    }
  }

  /**
   * Takes one retry from the budget: {@code true} and counted in {@link #retried()}, or {@code
   * false} and counted in {@link #refused()} when it is spent.
   */
  boolean tryWithdraw() {
    boolean ok;
    synchronized (lock) {
      long tick = tick();
      Slice now = slice(tick);
      ok = now != null && retriesInWindow(tick) < allowed(tick);
      if (ok) {
        now.retries++;
      }
    }
    (ok ? retried : refused).increment();
    return ok;
  }

  private long allowed(long tick) {
    return floor + (long) (ratio * callsInWindow(tick));
  }

  private long callsInWindow(long tick) {
    long n = 0;
    for (int i = 0; i < SLICES; i++) {
      Slice s = slices.get(i);
      if (tick - s.tick < SLICES) {
        n += s.calls.sum();
      }
    }
    return n;
  }

  @GuardedBy("lock")
  private long retriesInWindow(long tick) {
    long n = 0;
    for (int i = 0; i < SLICES; i++) {
      Slice s = slices.get(i);
      if (tick - s.tick < SLICES) {
        n += s.retries;
      }
    }
    return n;
  }

  /** Retries taken from the budget since the pool started. */
  long retried() {
    return retried.sum();
  }

  /** Retries the budget refused since the pool started. */
  long refused() {
    return refused.sum();
  }

  /** The window's numbers, for an error: {@code 12 of 12 retries for 20 calls (...)}. */
  String describe() {
    synchronized (lock) {
      long tick = tick();
      return retriesInWindow(tick)
          + " of "
          + allowed(tick)
          + " retries spent in the window, for "
          + callsInWindow(tick)
          + " calls (ratio "
          + ratio
          + ", floor "
          + floor
          + ")";
    }
  }
}
