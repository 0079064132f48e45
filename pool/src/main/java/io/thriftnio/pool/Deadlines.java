package io.thriftnio.pool;

import io.thriftnio.core.internal.NamedThreadFactory;
import io.thriftnio.core.util.internal.Checks;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one timer thread that ends calls at their deadline ({@code thrift-nio-pool-deadline}), shared
 * by every pool: a deadline task only fails a future or closes a connection, so one thread keeps
 * up, and a JVM with no deadline set never starts it. It stops after 30 s without work.
 */
final class Deadlines {
  private Deadlines() {}

  private static final class Holder {
    static final ScheduledThreadPoolExecutor TIMER = timer();

    private static ScheduledThreadPoolExecutor timer() {
      ScheduledThreadPoolExecutor t =
          new ScheduledThreadPoolExecutor(1, new NamedThreadFactory("thrift-nio-pool-deadline"));
      t.setRemoveOnCancelPolicy(true); // a call that ends in time leaves nothing behind
      t.setKeepAliveTime(30, TimeUnit.SECONDS);
      t.allowCoreThreadTimeOut(true);
      return t;
    }
  }

  /** Runs {@code task} in {@code nanos}; cancel the result when the call ends first. */
  public static ScheduledFuture<?> schedule(Runnable task, long nanos) {
    return Holder.TIMER.schedule(task, Math.max(0, nanos), TimeUnit.NANOSECONDS);
  }

  /**
   * A per-call deadline in nanoseconds, validated: {@code > 0}; one beyond about 292 years counts
   * as that (the nanosecond clock's range).
   */
  public static long checkPositive(String name, Duration deadline) {
    Checks.positive(name, deadline);
    try {
      return deadline.toNanos();
    } catch (ArithmeticException tooLong) {
      return Long.MAX_VALUE; // ~292 years: as good as no bound, and nanoTime sums wrap safely
    }
  }
}
