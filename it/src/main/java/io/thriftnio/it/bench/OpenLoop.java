package io.thriftnio.it.bench;

import io.thriftnio.core.ThriftChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Drives a client's async lanes open-loop: calls go out on a fixed schedule ({@link RateSchedule}),
 * whether or not earlier calls have been answered, and each call's latency counts from when it was
 * due. Warm-up at the same rate, then the measured window, then a bounded drain.
 *
 * <p>Any client kind whose {@link ClientKindRow#open} returns {@link ClientLoad.AsyncLane}s can be
 * driven: the lane sends one call and completes its future when the reply arrives (on any thread; a
 * completion must not block). A lane's {@link ClientLoad.AsyncLane#depth()} is the most calls it is
 * given at once; call {@code i} goes to the next lane, round robin, that has room. When every lane
 * is full the calls wait in the generator, still timed from their due times, and the backlog grows:
 * the run reports that as not sustained ({@link RateRun#sustained()}).
 *
 * <p>One sender thread keeps the schedule: it parks until the next due time and sends every call
 * that is due. Parking wakes tens of microseconds late, so at tens of thousands of calls per second
 * it sends small bursts; the latencies still count from each call's own due time.
 */
final class OpenLoop {

  /** Largest latency the histograms track: one hour, in microseconds. */
  private static final long HIGHEST_US = TimeUnit.HOURS.toMicros(1);

  /** How often the backlog is sampled in the window. */
  private static final long BACKLOG_SAMPLE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  /** The longest park of the sender, so that it sees the end of a phase soon. */
  private static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  /** The sender's pause when every lane is full. */
  private static final long FULL_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(20);

  private static final int ERRORS_PRINTED = 3;

  /**
   * The most calls given to one lane at once: the pipelined channel's own default limit, so that a
   * lane never refuses a call; past it (40 connections x 1,024) the run is far beyond any row.
   */
  static final int MAX_PER_LANE = ThriftChannel.DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CONNECTION;

  private final CellSpec cell;
  private final List<ClientLoad.AsyncLane> lanes;
  private final AtomicInteger[] outstanding;
  private final Recorder latency = new Recorder(HIGHEST_US, 3);
  private final Recorder sendLag = new Recorder(HIGHEST_US, 3);
  private final AtomicLong answered = new AtomicLong();
  private final AtomicLong inWindow = new AtomicLong();
  private final AtomicLong sentInWindow = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final AtomicLong checkFailures = new AtomicLong();
  private final AtomicReference<Throwable> firstError = new AtomicReference<>();
  private volatile boolean measuring;
  private volatile boolean stopped;

  private OpenLoop(CellSpec cell, List<ClientLoad.AsyncLane> lanes) {
    this.cell = cell;
    this.lanes = lanes;
    this.outstanding = new AtomicInteger[lanes.size()];
    for (int i = 0; i < outstanding.length; i++) {
      outstanding[i] = new AtomicInteger();
    }
  }

  /**
   * The async lanes of {@code load}.
   *
   * @throws IllegalArgumentException if it has none, or a sync lane: a blocking connection cannot
   *     keep a schedule
   */
  static List<ClientLoad.AsyncLane> asyncLanes(ClientLoad load, String kind) {
    List<ClientLoad.AsyncLane> out = new ArrayList<>();
    for (ClientLoad.Lane lane : load.lanes()) {
      if (!(lane instanceof ClientLoad.AsyncLane)) {
        throw new IllegalArgumentException(
            kind
                + " gives blocking lanes; an open-loop run needs a client kind whose lanes send"
                + " a call and complete it later (netty-async, grizzly-async, ...)");
      }
      out.add((ClientLoad.AsyncLane) lane);
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(kind + " opened no lanes");
    }
    return out;
  }

  /**
   * Runs {@code load} at {@code rate} calls/s: warm-up for {@link CellSpec#warmup()} (longer while
   * {@code window} is not {@link LoadEngine.Window#settled()}, up to {@value
   * LoadEngine.Window#WARMUP_STRETCH} times), then {@link CellSpec#duration()} measured, telling
   * {@code window} when it opens and closes. Closes {@code load}.
   *
   * @throws IllegalArgumentException if {@code load} has a blocking lane; it is closed
   * @throws InterruptedException if this thread is interrupted; the load is closed first
   */
  static RateRun run(CellSpec cell, double rate, ClientLoad load, LoadEngine.Window window)
      throws InterruptedException {
    try {
      OpenLoop loop = new OpenLoop(cell, asyncLanes(load, cell.client()));
      return loop.drive(new RateSchedule(System.nanoTime(), rate), load, window);
    } finally {
      load.close();
    }
  }

  private RateRun drive(RateSchedule schedule, ClientLoad load, LoadEngine.Window window)
      throws InterruptedException {
    Thread sender = new Thread(() -> send(schedule), "bench-open-loop-sender");
    sender.setDaemon(true);
    sender.start();
    try {
      long warmupEnd = schedule.startNanos() + cell.warmup().toNanos();
      long stretchEnd =
          schedule.startNanos() + LoadEngine.Window.WARMUP_STRETCH * cell.warmup().toNanos();
      OwnJit jit = new OwnJit();
      sleepUntil(warmupEnd);
      while (System.nanoTime() < stretchEnd
          && (answered.get() < window.warmupCalls() || !window.settled() || !jit.quiet())) {
        Thread.sleep(50);
      }
      window.opening();
      latency.getIntervalHistogram(); // drops the warm-up's samples
      sendLag.getIntervalHistogram();
      measuring = true;
      long start = System.nanoTime();
      long end = start + cell.duration().toNanos();
      long[] backlog = new long[(int) (cell.duration().toNanos() / BACKLOG_SAMPLE_NANOS) + 2];
      int samples = 0;
      for (long next = start; ; next += BACKLOG_SAMPLE_NANOS) {
        sleepUntil(Math.min(next, end));
        long now = System.nanoTime();
        if (samples < backlog.length) {
          backlog[samples++] = schedule.dueBy(now) - answered.get();
        }
        if (now >= end) {
          break;
        }
      }
      measuring = false;
      long windowNanos = System.nanoTime() - start;
      Histogram lat = latency.getIntervalHistogram();
      Histogram lag = sendLag.getIntervalHistogram();
      long calls = inWindow.get();
      long offered = sentInWindow.get();
      window.closed();
      stopped = true;
      sender.join(TimeUnit.SECONDS.toMillis(5));
      drain(load);
      Throwable first = firstError.get();
      if (first != null) {
        System.err.println(
            "bench: " + cell.label() + ": " + errors.get() + " errors, first: " + first);
      }
      long[] window5 = Arrays.copyOf(backlog, samples);
      return new RateRun(
          schedule.rate(),
          offered,
          calls,
          windowNanos / 1e9,
          lat.getValueAtPercentile(50),
          lat.getValueAtPercentile(99),
          lat.getValueAtPercentile(99.9),
          lat.getMaxValue(),
          lag.getValueAtPercentile(99),
          fifthMedian(window5, true),
          fifthMedian(window5, false),
          errors.get(),
          checkFailures.get());
    } finally {
      stopped = true;
      measuring = false;
    }
  }

  /**
   * This JVM's JIT compiler threads, as the warm-up watches them: the load generator's own
   * compiling takes the CPU its sender and its connections' event loop need, and calls then wait
   * for it. Measured (scheduler statistics of each thread, {@code netty/same-thread} at 80% of its
   * maximum over 40 connections, 2 s warm-up): the generator's C2 compiler thread ran 43% of the
   * window and the client's event loop waited for the CPU 43% of it; after a 12 s warm-up, 5% and
   * 14%, and p99 fell from 42 to 4.6 ms.
   */
  private static final class OwnJit {
    private final long pid = ProcessHandle.current().pid();
    private long cpu = ProcStat.compilerThreadsCpuNanos(pid);
    private long sampledAt = System.nanoTime();
    private boolean quiet = cpu < 0;

    /**
     * Whether the compiler threads used under {@link EfficiencyCommand.Sampler#QUIET_JIT_SHARE} of
     * a CPU since the last look, at least {@link EfficiencyCommand.Sampler#QUIET_JIT_INTERVAL_MS}
     * ms ago; always where there is no {@code /proc}.
     */
    boolean quiet() {
      long now = System.nanoTime();
      if (cpu < 0
          || now - sampledAt < EfficiencyCommand.Sampler.QUIET_JIT_INTERVAL_MS * 1_000_000L) {
        return quiet;
      }
      long c = ProcStat.compilerThreadsCpuNanos(pid);
      quiet = c < 0 || c - cpu < EfficiencyCommand.Sampler.QUIET_JIT_SHARE * (now - sampledAt);
      cpu = c;
      sampledAt = now;
      return quiet;
    }
  }

  /** The median of the first (or last) fifth of {@code samples}, at least one sample; 0 if none. */
  static double fifthMedian(long[] samples, boolean first) {
    if (samples.length == 0) {
      return 0;
    }
    int n = Math.max(1, samples.length / 5);
    long[] part =
        first
            ? Arrays.copyOf(samples, n)
            : Arrays.copyOfRange(samples, samples.length - n, samples.length);
    Arrays.sort(part);
    return n % 2 == 1 ? part[n / 2] : (part[n / 2 - 1] + part[n / 2]) / 2.0;
  }

  /** Waits for the calls still out, then closes the load: a hung call is cut off. */
  private void drain(ClientLoad load) throws InterruptedException {
    long deadline = System.nanoTime() + cell.callTimeout().toNanos() + TimeUnit.SECONDS.toNanos(1);
    while (out() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    if (out() > 0) {
      System.err.println(
          "bench: " + cell.label() + ": " + out() + " calls still out after the end; closing");
    }
    load.close();
  }

  private long out() {
    long n = 0;
    for (AtomicInteger o : outstanding) {
      n += o.get();
    }
    return n;
  }

  private static void sleepUntil(long deadline) throws InterruptedException {
    for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime()) {
      TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
    }
  }

  /** The sender thread: sends call {@code i} at its due time, or as soon after as it can. */
  private void send(RateSchedule schedule) {
    int next = 0;
    for (long i = 0; !stopped; i++) {
      long due = schedule.dueNanos(i);
      for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
        LockSupport.parkNanos(Math.min(wait, MAX_PARK_NANOS));
        if (stopped) {
          return;
        }
      }
      int lane = -1;
      while (lane < 0) {
        lane = roomFrom(next);
        if (lane < 0) {
          LockSupport.parkNanos(FULL_PARK_NANOS);
          if (stopped) {
            return;
          }
        }
      }
      next = (lane + 1) % lanes.size();
      if (measuring) {
        sentInWindow.incrementAndGet();
        sendLag.recordValue(
            Math.min(RateSchedule.latencyMicros(due, System.nanoTime()), HIGHEST_US));
      }
      start(lane, due);
    }
  }

  /** The first lane from {@code from}, round robin, with room for one more call; -1 if none. */
  private int roomFrom(int from) {
    for (int k = 0; k < lanes.size(); k++) {
      int lane = (from + k) % lanes.size();
      if (outstanding[lane].get() < lanes.get(lane).depth()) {
        return lane;
      }
    }
    return -1;
  }

  private void start(int lane, long due) {
    outstanding[lane].incrementAndGet();
    CompletableFuture<Boolean> call;
    try {
      call = lanes.get(lane).call();
    } catch (RuntimeException e) {
      call = CompletableFuture.failedFuture(e);
    }
    call.whenComplete((ok, failure) -> finish(lane, due, ok, failure));
  }

  private void finish(int lane, long due, Boolean ok, Throwable failure) {
    long now = System.nanoTime();
    if (failure != null) {
      if (!stopped) {
        long n = errors.incrementAndGet();
        firstError.compareAndSet(null, AsyncUnwrap.cause(failure));
        if (n <= ERRORS_PRINTED) {
          System.err.println(
              "bench: " + cell.label() + ": call failed: " + AsyncUnwrap.cause(failure));
        }
      }
    } else {
      if (!Boolean.TRUE.equals(ok)) {
        checkFailures.incrementAndGet();
      }
      if (measuring) {
        inWindow.incrementAndGet();
        latency.recordValue(Math.min(RateSchedule.latencyMicros(due, now), HIGHEST_US));
      }
    }
    // A failed call is answered too, as far as the backlog goes: it is no longer waiting.
    answered.incrementAndGet();
    outstanding[lane].decrementAndGet();
  }
}
