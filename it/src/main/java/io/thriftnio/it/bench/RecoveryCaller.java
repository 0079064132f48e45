package io.thriftnio.it.bench;

import io.thriftnio.pool.PoolStats;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * One pool under {@code recovery}: a caller thread that calls through it every {@code interval},
 * whatever the outcome, and notes the first call served after a moment the command names ({@link
 * #watchFrom}).
 */
final class RecoveryCaller implements AutoCloseable {

  /** One blocking call through the pool; throws what the pool raised. */
  interface Call {
    void run() throws Exception;
  }

  final String pool;
  private final Call call;
  private final Supplier<PoolStats> stats;
  private final long intervalNanos;
  private final Thread thread;
  private final LongAdder served = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final AtomicLong firstServed = new AtomicLong();
  private volatile long watchFrom; // 0: not watching
  private volatile String lastError = "";
  private volatile boolean running = true;

  RecoveryCaller(String pool, Call call, Supplier<PoolStats> stats, long intervalNanos) {
    this.pool = pool;
    this.call = call;
    this.stats = stats;
    this.intervalNanos = intervalNanos;
    this.thread = new Thread(this::loop, "recovery-caller-" + pool);
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  private void loop() {
    while (running) {
      try {
        call.run();
        long done = System.nanoTime();
        served.increment();
        long from = watchFrom;
        if (from != 0 && done - from > 0) {
          firstServed.compareAndSet(0, done);
        }
      } catch (Exception e) {
        failed.increment();
        lastError = e.toString();
      }
      LockSupport.parkNanos(intervalNanos);
    }
  }

  /** Calls served since the start. */
  long served() {
    return served.sum();
  }

  /** Calls that failed since the start. */
  long failed() {
    return failed.sum();
  }

  /** The pool's connect attempts that failed, since the pool started. */
  long connectFailures() {
    return stats.get().connectFailures();
  }

  String lastError() {
    return lastError;
  }

  /** From now on, notes the first call served after {@code nanoTime}. */
  void watchFrom(long nanoTime) {
    firstServed.set(0);
    watchFrom = nanoTime;
  }

  /**
   * Waits until a call has been served after the watched moment, at most {@code maxNanos}; the
   * {@code System.nanoTime()} it completed at, or 0 if none came in time.
   */
  long awaitFirstServed(long maxNanos) {
    long deadline = System.nanoTime() + maxNanos;
    long first;
    while ((first = firstServed.get()) == 0 && System.nanoTime() - deadline < 0) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
    watchFrom = 0;
    return first;
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.join(TimeUnit.SECONDS.toMillis(40)); // a call in flight ends within its timeouts
  }
}
