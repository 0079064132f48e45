package io.thriftnio.it.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.thrift.TApplicationException;

/**
 * Drives the lanes of one cell: warm-up, then measurement, then a bounded drain.
 *
 * <p>A sync lane gets its own thread; an async lane keeps {@link ClientLoad.AsyncLane#depth()}
 * calls in flight, starting the next call from the completion of the last. Latency is recorded in
 * an HdrHistogram in microseconds; only calls that complete inside the measured window count. Every
 * phase is bounded in time, and the measured phase also by {@link CellSpec#maxCalls()} (exactly
 * that many calls are measured, the window ending as the last completes); a lane whose call hangs
 * past the drain bound is cut off by closing the client's connections.
 */
final class LoadEngine {

  /** Largest latency the histogram tracks: one hour, in microseconds. */
  private static final long HIGHEST_US = TimeUnit.HOURS.toMicros(1);

  /** Printed with an error the first few times, so a failing cell says why. */
  private static final int ERRORS_PRINTED = 3;

  private static final int WARMUP = 0;
  private static final int MEASURE = 1;
  private static final int STOP = 2;

  /**
   * Calls an async stream starts in a row that complete at once, before it hands itself to {@link
   * #resumer}: a lane that fails (or answers) synchronously must not hold the thread that started
   * it, least of all the thread that ends the phases.
   */
  private static final int SYNC_COMPLETIONS_BEFORE_HANDOFF = 64;

  /**
   * Told when the measured window opens and closes, on the thread that drives the cell: a caller
   * samples CPU time and allocation there, so that only the window is measured.
   */
  interface Window {
    /** Nothing to sample. */
    Window NONE = new Window() {};

    /** Called just before the first call that counts. */
    default void opening() {}

    /** Called just after the window ends, before in-flight calls drain. */
    default void closed() {}

    /**
     * Calls the warm-up must complete before the window opens, beyond its duration: a process
     * starved by other load has not compiled its hot path after the usual warm-up. The warm-up goes
     * on for at most {@value #WARMUP_STRETCH} times its duration. 0: the duration alone.
     */
    default long warmupCalls() {
      return 0;
    }

    /**
     * Whether the measured process has finished its start-up work: its JIT compiler has gone quiet.
     * Polled every 50 ms once the warm-up's duration has passed; the warm-up goes on while it says
     * no, within {@value #WARMUP_STRETCH} times its duration. A fresh server JVM compiles for
     * seconds, and that CPU, counted in the window, would be charged to its calls.
     */
    default boolean settled() {
      return true;
    }

    /**
     * How far the warm-up may stretch to reach {@link #warmupCalls()} and {@link #settled()}, in
     * warm-up durations.
     */
    int WARMUP_STRETCH = 4;
  }

  private final ExecutorService resumer =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "bench-async-resume");
            t.setDaemon(true);
            return t;
          });
  private final CellSpec cell;
  private final Recorder recorder = new Recorder(HIGHEST_US, 3);
  private final AtomicLong errors = new AtomicLong();
  private final AtomicLong checkFailures = new AtomicLong();
  private final AtomicLong measuredCalls = new AtomicLong();
  private final AtomicLong warmupCalls = new AtomicLong();
  private final AtomicReference<Throwable> firstError = new AtomicReference<>();
  private volatile int phase = WARMUP;

  /** When the {@link CellSpec#maxCalls()}-th measured call completed, or 0. */
  private volatile long countReachedNanos;

  private LoadEngine(CellSpec cell) {
    this.cell = cell;
  }

  /**
   * Runs one cell against an opened client and returns its result. Closes {@code load}.
   *
   * @param cell the cell
   * @param load the client's lanes
   * @return the result
   * @throws InterruptedException if the calling thread is interrupted; the load is closed first
   */
  static CellResult run(CellSpec cell, ClientLoad load) throws InterruptedException {
    return run(cell, load, Window.NONE);
  }

  /**
   * Runs one cell as {@link #run(CellSpec, ClientLoad)} does, telling {@code window} when the
   * measured window opens and closes.
   */
  static CellResult run(CellSpec cell, ClientLoad load, Window window) throws InterruptedException {
    LoadEngine engine = new LoadEngine(cell);
    try {
      return engine.drive(load, window);
    } finally {
      // Also when the window's sampling failed: the lanes stop before their connections close.
      engine.phase = STOP;
      load.close();
      engine.resumer.shutdownNow();
    }
  }

  private CellResult drive(ClientLoad load, Window window) throws InterruptedException {
    List<ClientLoad.Lane> lanes = load.lanes();
    int streams = 0;
    for (ClientLoad.Lane lane : lanes) {
      streams += lane instanceof ClientLoad.AsyncLane ? ((ClientLoad.AsyncLane) lane).depth() : 1;
    }
    CountDownLatch done = new CountDownLatch(streams);
    List<Thread> threads = new ArrayList<>();
    int index = 0;
    for (ClientLoad.Lane lane : lanes) {
      if (lane instanceof ClientLoad.SyncLane) {
        ClientLoad.SyncLane sync = (ClientLoad.SyncLane) lane;
        Thread t = new Thread(() -> runSync(sync, done), "bench-lane-" + index++);
        t.setDaemon(true);
        threads.add(t);
      } else {
        ClientLoad.AsyncLane async = (ClientLoad.AsyncLane) lane;
        for (int d = 0; d < async.depth(); d++) {
          new AsyncStream(async, done).next();
        }
      }
    }
    for (Thread t : threads) {
      t.start();
    }
    long warmupStart = System.nanoTime();
    boolean finishedEarly = done.await(cell.warmup().toNanos(), TimeUnit.NANOSECONDS);
    long stretchEnd = warmupStart + Window.WARMUP_STRETCH * cell.warmup().toNanos();
    while (!finishedEarly
        && (warmupCalls.get() < window.warmupCalls() || !window.settled())
        && System.nanoTime() < stretchEnd) {
      finishedEarly = done.await(TimeUnit.MILLISECONDS.toNanos(50), TimeUnit.NANOSECONDS);
    }
    window.opening();
    recorder.getIntervalHistogram(); // drops the warm-up samples
    measuredCalls.set(0);
    phase = MEASURE;
    long measureStart = System.nanoTime();
    long deadline = measureStart + cell.duration().toNanos();
    while (!finishedEarly && System.nanoTime() < deadline) {
      long left = deadline - System.nanoTime();
      long slice = Math.min(left, TimeUnit.MILLISECONDS.toNanos(50));
      finishedEarly = done.await(slice, TimeUnit.NANOSECONDS);
      if (cell.maxCalls() > 0 && measuredCalls.get() >= cell.maxCalls()) {
        break;
      }
    }
    phase = STOP;
    long measureEnd = countReachedNanos != 0 ? countReachedNanos : System.nanoTime();
    Histogram histogram = recorder.getIntervalHistogram();
    window.closed();
    // Calls in flight finish (they are not counted); a hung one is cut off by closing the load.
    long drainNanos = cell.callTimeout().toNanos() + TimeUnit.SECONDS.toNanos(1);
    if (!done.await(drainNanos, TimeUnit.NANOSECONDS)) {
      System.err.println(
          "bench: "
              + cell.label()
              + ": calls still running "
              + (drainNanos / 1_000_000)
              + " ms after the end; closing the connections");
    }
    load.close();
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(5));
    }
    double seconds = Math.max(1e-9, (measureEnd - measureStart) / 1e9);
    long calls = histogram.getTotalCount();
    Throwable first = firstError.get();
    if (first != null) {
      System.err.println(
          "bench: " + cell.label() + ": " + errors.get() + " errors, first: " + first);
    }
    return new CellResult(
        cell.server(),
        cell.client(),
        cell.workload().label(),
        cell.protocol(),
        cell.connections(),
        calls / seconds,
        calls,
        calls == 0 ? 0 : histogram.getMean(),
        histogram.getValueAtPercentile(50),
        histogram.getValueAtPercentile(95),
        histogram.getValueAtPercentile(99),
        histogram.getValueAtPercentile(99.9),
        histogram.getMaxValue(),
        errors.get(),
        checkFailures.get(),
        load.connectionsOpened(),
        seconds,
        null);
  }

  private void runSync(ClientLoad.SyncLane lane, CountDownLatch done) {
    try {
      while (phase != STOP) {
        long t0 = System.nanoTime();
        boolean ok;
        try {
          ok = lane.call();
        } catch (Exception | Error e) {
          if (phase == STOP) {
            return; // the load was closed under a call that began before the end
          }
          failed(e);
          if (answered(e)) {
            continue; // the server's answer (a refusal): the connection is intact, the load goes on
          }
          if (!lane.continuesAfterError() || !pauseAfterError()) {
            return;
          }
          continue;
        }
        completed(t0, ok);
      }
    } finally {
      done.countDown();
    }
  }

  private void completed(long startNanos, boolean ok) {
    long micros = (System.nanoTime() - startNanos) / 1000;
    if (!ok) {
      checkFailures.incrementAndGet();
    }
    if (phase == MEASURE) {
      long n = measuredCalls.incrementAndGet();
      long max = cell.maxCalls();
      if (max > 0 && n > max) {
        return; // another lane completed the count: this call is past the window
      }
      recorder.recordValue(Math.min(Math.max(micros, 0), HIGHEST_US));
      if (n == max) {
        // Exactly maxCalls measured: the window ends with this call, and the lanes stop.
        countReachedNanos = System.nanoTime();
        phase = STOP;
      }
    } else if (phase == WARMUP) {
      warmupCalls.incrementAndGet();
    }
  }

  private void failed(Throwable t) {
    long n = errors.incrementAndGet();
    firstError.compareAndSet(null, t);
    if (n <= ERRORS_PRINTED) {
      System.err.println("bench: " + cell.label() + ": call failed: " + t);
    }
  }

  /** One of an async lane's {@code depth} call chains. */
  private final class AsyncStream {
    private final ClientLoad.AsyncLane lane;
    private final CountDownLatch done;

    AsyncStream(ClientLoad.AsyncLane lane, CountDownLatch done) {
      this.lane = lane;
      this.done = done;
    }

    /**
     * Starts calls until one is still running when this method looks at it; that call's completion
     * starts the next. A call that completes at once (a failure, or a very fast reply) loops here
     * instead of nesting completions on the stack, and after {@value
     * #SYNC_COMPLETIONS_BEFORE_HANDOFF} such calls the stream goes on on another thread.
     */
    void next() {
      for (int inline = 0; ; inline++) {
        if (inline == SYNC_COMPLETIONS_BEFORE_HANDOFF) {
          try {
            resumer.execute(this::next);
            return;
          } catch (RejectedExecutionException e) {
            // The engine is finishing: this stream ends here.
            done.countDown();
            return;
          }
        }
        if (phase == STOP) {
          done.countDown();
          return;
        }
        long t0 = System.nanoTime();
        CompletableFuture<Boolean> call;
        try {
          call = lane.call();
        } catch (RuntimeException e) {
          call = CompletableFuture.failedFuture(e);
        }
        if (!call.isDone()) {
          call.whenComplete(
              (ok, failure) -> {
                if (finish(t0, ok, failure)) {
                  next();
                } else {
                  done.countDown();
                }
              });
          return;
        }
        boolean failedAtOnce = call.isCompletedExceptionally();
        Boolean ok = failedAtOnce ? null : call.getNow(null);
        if (!finish(t0, ok, failedAtOnce ? failureOf(call) : null)) {
          done.countDown();
          return;
        }
      }
    }

    /** Records a completed call; returns whether the stream goes on. */
    private boolean finish(long t0, Boolean ok, Throwable failure) {
      if (failure == null) {
        completed(t0, Boolean.TRUE.equals(ok));
        return true;
      }
      if (phase == STOP) {
        return false;
      }
      Throwable cause = AsyncUnwrap.cause(failure);
      failed(cause);
      return answered(cause) || (lane.continuesAfterError() && pauseAfterError());
    }
  }

  /**
   * Whether a failed call was answered by the server ({@code not run: server overloaded ...}, a
   * handler's undeclared exception): its whole reply was read, so the connection is as good as
   * after a result and its lane goes on at once. A lane that stopped here would take its share of
   * the load away for the rest of the run: a server that refused a few calls at its start would be
   * measured under a fraction of the load asked for.
   */
  private static boolean answered(Throwable t) {
    return t instanceof TApplicationException;
  }

  /**
   * A pause after a failed call on a lane that goes on, so that a dead server costs a bounded
   * number of failures per second instead of a spinning loop. Returns false if interrupted.
   */
  private static boolean pauseAfterError() {
    try {
      Thread.sleep(1);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static Throwable failureOf(CompletableFuture<?> f) {
    try {
      f.join();
      return new IllegalStateException("completed normally");
    } catch (RuntimeException e) {
      return e;
    }
  }
}
