package io.thriftnio.pool.internal;

import io.thriftnio.pool.PoolConfig;
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
 */
final class RetryBudget {
  private static final int SLICES = 10;

  private final double ratio;
  private final long floor;
  private final long sliceNanos;
  private final LongSupplier clock;
  // Slice i covers clock tick stamps[i]; guarded by this.
  private final long[] stamps = new long[SLICES];
  private final long[] calls = new long[SLICES];
  private final long[] retries = new long[SLICES];
  private final LongAdder retried = new LongAdder();
  private final LongAdder refused = new LongAdder();

  RetryBudget(PoolConfig config, LongSupplier clock) {
    this.ratio = config.retryBudgetRatio();
    long windowNanos = config.retryBudgetWindow().toNanos();
    this.floor =
        (long) Math.min(Long.MAX_VALUE / 4, config.minRetriesPerSecond() * (windowNanos / 1e9));
    this.sliceNanos = Math.max(1, windowNanos / SLICES);
    this.clock = clock;
    long tick = tick();
    for (int i = 0; i < SLICES; i++) {
      stamps[i] = tick - SLICES; // every slice stale: the window starts empty
    }
  }

  private long tick() {
    return Math.floorDiv(clock.getAsLong(), sliceNanos);
  }

  /** The slice of {@code tick}, emptied first if it held an older tick's counts. */
  private int slice(long tick) {
    int i = (int) Math.floorMod(tick, (long) SLICES);
    if (stamps[i] != tick) {
      stamps[i] = tick;
      calls[i] = 0;
      retries[i] = 0;
    }
    return i;
  }

  /** A call started: the budget grows by {@code ratio}. */
  synchronized void deposit() {
    calls[slice(tick())]++;
  }

  /**
   * Takes one retry from the budget: {@code true} and counted in {@link #retried()}, or {@code
   * false} and counted in {@link #refused()} when it is spent.
   */
  boolean tryWithdraw() {
    boolean ok;
    synchronized (this) {
      long tick = tick();
      int now = slice(tick);
      ok = retriesInWindow(tick) < allowed(tick);
      if (ok) {
        retries[now]++;
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
      if (tick - stamps[i] < SLICES) {
        n += calls[i];
      }
    }
    return n;
  }

  private long retriesInWindow(long tick) {
    long n = 0;
    for (int i = 0; i < SLICES; i++) {
      if (tick - stamps[i] < SLICES) {
        n += retries[i];
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
  synchronized String describe() {
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
