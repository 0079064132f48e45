package io.thriftnio.it.bench;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.NotRun;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.util.internal.CallTimeoutException;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.testkit.AsyncCaller;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.thrift.TApplicationException;

/**
 * The load generator of the {@code overload} command: pipelining connections of this library's
 * Netty channel that call {@code echo} with an {@link OverloadHandler} payload (the caller's
 * deadline inside), either closed-loop to find a row's capacity ({@link #saturate}) or open-loop at
 * a fixed rate with a deadline ({@link #offer}).
 *
 * <p>Open loop: one sender thread sends call {@code i} at its due time ({@link RateSchedule})
 * whatever happened to the calls before it; each call's latency counts from its due time. The
 * channel gives up on a call at the deadline ({@code callTimeout}); over THeader the deadline also
 * goes to the server as {@code client_timeout}. Each call sent inside the measured window is
 * counted by its outcome, whenever that arrives.
 */
final class OverloadLoad implements AutoCloseable {

  private static final long HIGHEST_US = TimeUnit.HOURS.toMicros(1);
  private static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final int ERRORS_PRINTED = 3;

  /** The most calls one connection holds at once: far past any deadline's backlog. */
  static final int MAX_IN_FLIGHT = 100_000;

  private final NettyClientIo io;
  private final List<ThriftChannel> channels = new ArrayList<>();
  private final List<AsyncCaller<BenchService.Client>> callers = new ArrayList<>();
  private final String label;

  /**
   * Opens {@code connections} channels to {@code address}, giving up on each call after {@code
   * callTimeout}.
   */
  OverloadLoad(
      String label,
      InetSocketAddress address,
      int connections,
      WireKind wire,
      String protocol,
      Duration callTimeout)
      throws Exception {
    this.label = label;
    this.io = NettyClientIo.create(Math.max(1, Runtime.getRuntime().availableProcessors()));
    try {
      ClientOptions options =
          ClientOptions.builder()
              .wireKind(wire)
              .callTimeout(callTimeout)
              .maxCallsInFlightPerConnection(MAX_IN_FLIGHT)
              .callbackExecutor(Runnable::run)
              .build();
      for (int i = 0; i < connections; i++) {
        ThriftChannel c = io.openChannel(address, options);
        channels.add(c);
        callers.add(
            AsyncCaller.of(
                c, BenchService.Client::new, Protocols.factory(protocol), Runnable::run));
      }
    } catch (Exception | Error e) {
      close();
      throw e;
    }
  }

  /** A payload carrying {@code deadlineWallMicros} and {@code seq}. */
  static ByteBuffer payload(long deadlineWallMicros, long seq) {
    ByteBuffer b = ByteBuffer.allocate(OverloadHandler.PAYLOAD_BYTES);
    b.putLong(0, deadlineWallMicros);
    b.putLong(8, seq);
    return b;
  }

  private CompletableFuture<ByteBuffer> call(int lane, ByteBuffer payload) {
    try {
      return callers.get(lane).call(c -> c.send_echo(payload), BenchService.Client::recv_echo);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Calls in flight of the capacity's first step. */
  static final int FIRST_IN_FLIGHT = 8;

  /** How much a step's rate must grow over the best so far for the next step to be taken. */
  static final double GROWTH = 1.05;

  private static final long SETTLE_MS = 300;

  /** A row's capacity: the best answered rate of a step, and that step's calls in flight. */
  record Capacity(double callsPerSecond, int inFlight) {}

  /**
   * Closed loop, stepped: {@value #FIRST_IN_FLIGHT} calls in flight over the connections for {@code
   * warmup}, and on (up to {@value LoadEngine.Window#WARMUP_STRETCH} times as long) until the
   * server JVM's JIT compiler threads, and ours, have used under {@link
   * EfficiencyCommand.Sampler#QUIET_JIT_SHARE} of a CPU for {@link
   * EfficiencyCommand.Sampler#QUIET_JIT_INTERVAL_MS} ms (a server still compiling would show too
   * low a capacity); then the answers are counted over {@code step}, the calls in flight doubled,
   * and counted again after a short settling, up to {@code maxInFlight}, for as long as the rate
   * grows by {@link #GROWTH} or more. The capacity is the best step's rate: a row that bounds its
   * queue sheds a loop deeper than it needs, so the deepest loop's rate understates what it can
   * answer. Each step is printed.
   *
   * @param serverPid the server's process, for its compiler threads; -1 for none
   */
  Capacity saturate(int maxInFlight, Duration warmup, Duration step, long serverPid)
      throws InterruptedException {
    LongAdder answered = new LongAdder();
    LongAdder refused = new LongAdder();
    AtomicLong failures = new AtomicLong();
    int inFlight = Math.min(FIRST_IN_FLIGHT, maxInFlight);
    // A sender thread keeps the calls in flight, not the completions: calls started from the
    // client's event loop inside a completion measured netty/same-thread with cpu:100us at 15
    // calls/s, where this sender measures 1,499 and the open loop answers 1,499 in time.
    Semaphore room = new Semaphore(inFlight);
    // Slots whose call was refused "not run": each sends again once the server has answered a call
    // (or after 10 ms with no answer), as a caller that backs off does. Sent again at once, they
    // kept a row that refuses busy answering refusals, its capacity spent on the closed loop's own
    // retry storm, which no open-loop level offers.
    AtomicInteger refusedSlots = new AtomicInteger();
    AtomicLong stopAt = new AtomicLong(Long.MAX_VALUE);
    Thread sender =
        new Thread(
            () -> {
              int lane = 0;
              try {
                while (System.nanoTime() < stopAt.get()) {
                  if (!room.tryAcquire(10, TimeUnit.MILLISECONDS)) {
                    sendAgain(refusedSlots, room); // nothing answered for a while
                    continue;
                  }
                  call(lane, payload(Long.MAX_VALUE, 0))
                      .whenComplete(
                          (r, t) -> {
                            if (t == null) {
                              answered.increment();
                              room.release();
                              sendAgain(refusedSlots, room);
                            } else if (outcome(t) == Failure.NOT_RUN) {
                              // Refused at once (a limit): the slot waits for the next answer;
                              // only answers count toward the capacity.
                              refused.increment();
                              refusedSlots.incrementAndGet();
                            } else if (System.nanoTime() < stopAt.get()
                                && failures.getAndIncrement() < ERRORS_PRINTED) {
                              // This slot stops: a call that fails at once would fail again.
                              System.err.println(
                                  "overload: "
                                      + label
                                      + ": capacity call failed: "
                                      + AsyncUnwrap.cause(t));
                            }
                          });
                  lane = (lane + 1) % channels.size();
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "bench-overload-capacity");
    sender.setDaemon(true);
    sender.start();
    try {
      long start = System.nanoTime();
      Thread.sleep(warmup.toMillis());
      long stretchEnd = start + LoadEngine.Window.WARMUP_STRETCH * warmup.toNanos();
      long own = ProcessHandle.current().pid();
      while (System.nanoTime() < stretchEnd && !(jitQuiet(serverPid) && jitQuiet(own))) {
        Thread.sleep(50);
      }
      Capacity best = new Capacity(0, inFlight);
      StringBuilder steps = new StringBuilder();
      while (true) {
        long a0 = answered.sum();
        long r0 = refused.sum();
        long t0 = System.nanoTime();
        Thread.sleep(step.toMillis());
        double rate = (answered.sum() - a0) * 1e9 / (System.nanoTime() - t0);
        steps.append(
            String.format(
                Locale.ROOT,
                "%s%d in flight %,.0f/s (%,d refused)",
                steps.length() == 0 ? "" : ", ",
                inFlight,
                rate,
                refused.sum() - r0));
        int next = nextStep(best.callsPerSecond(), rate, inFlight, maxInFlight);
        if (rate > best.callsPerSecond()) {
          best = new Capacity(rate, inFlight);
        }
        if (next == 0) {
          break;
        }
        room.release(next - inFlight);
        inFlight = next;
        Thread.sleep(SETTLE_MS);
      }
      System.err.println("overload: " + label + ": capacity steps: " + steps);
      return best;
    } finally {
      stopAt.set(System.nanoTime());
      sender.join(TimeUnit.SECONDS.toMillis(5));
    }
  }

  /**
   * The calls in flight of the capacity's next step, after a step at {@code inFlight} answered
   * {@code rate} calls/s where the best before it answered {@code best}: twice as many (at most
   * {@code maxInFlight}) while the rate grows by {@link #GROWTH} or more, else 0 (the last step).
   */
  static int nextStep(double best, double rate, int inFlight, int maxInFlight) {
    if (rate < best * GROWTH || inFlight >= maxInFlight) {
      return 0;
    }
    return (int) Math.min(2L * inFlight, maxInFlight);
  }

  /** Gives one refused slot, if any, its place back. */
  private static void sendAgain(AtomicInteger refusedSlots, Semaphore room) {
    if (refusedSlots.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0) {
      room.release();
    }
  }

  /**
   * Whether {@code pid}'s compiler threads used under the quiet share of a CPU over the next
   * interval; {@code true} where that cannot be read.
   */
  private static boolean jitQuiet(long pid) throws InterruptedException {
    long c0 = pid < 0 ? -1 : ProcStat.compilerThreadsCpuNanos(pid);
    if (c0 < 0) {
      return true;
    }
    long t0 = System.nanoTime();
    Thread.sleep(EfficiencyCommand.Sampler.QUIET_JIT_INTERVAL_MS);
    long c1 = ProcStat.compilerThreadsCpuNanos(pid);
    return c1 < 0 || c1 - c0 < EfficiencyCommand.Sampler.QUIET_JIT_SHARE * (System.nanoTime() - t0);
  }

  /** What one open-loop level counted; see {@link OverloadResult.Level}. */
  static final class Counts {
    final LongAdder sent = new LongAdder();
    final LongAdder inTime = new LongAdder();
    final LongAdder lateReplies = new LongAdder();
    final LongAdder notRun = new LongAdder();
    final LongAdder shedAtDeadline = new LongAdder();
    final LongAdder timedOut = new LongAdder();
    final LongAdder otherErrors = new LongAdder();
    final AtomicLong outstanding = new AtomicLong();
    final Recorder admitted = new Recorder(HIGHEST_US, 3);
    final Recorder sendLag = new Recorder(HIGHEST_US, 3);
  }

  /**
   * Open loop at {@code rate} calls/s, each call given up at {@code deadline}: warm-up, then the
   * window; returns once every call of the window has an outcome (at most the deadline and a second
   * after the window).
   *
   * @param window called with {@code true} when the window opens and {@code false} when it closes
   */
  OverloadResult.Level offer(
      double factor,
      double rate,
      Duration deadline,
      Duration warmup,
      Duration duration,
      java.util.function.Consumer<Boolean> window)
      throws InterruptedException {
    RateSchedule schedule = new RateSchedule(System.nanoTime() + 1_000_000, rate);
    Counts counts = new Counts();
    long deadlineNanos = deadline.toNanos();
    long deadlineMicros = TimeUnit.NANOSECONDS.toMicros(deadlineNanos);
    long windowStart = schedule.startNanos() + warmup.toNanos();
    long windowEnd = windowStart + duration.toNanos();
    Thread sender =
        new Thread(
            () -> {
              int lane = 0;
              for (long i = 0; ; i++) {
                long due = schedule.dueNanos(i);
                if (due >= windowEnd) {
                  return;
                }
                for (long w = due - System.nanoTime(); w > 0; w = due - System.nanoTime()) {
                  LockSupport.parkNanos(Math.min(w, MAX_PARK_NANOS));
                }
                boolean measured = due >= windowStart;
                long now = System.nanoTime();
                if (measured) {
                  counts.sent.increment();
                  counts.outstanding.incrementAndGet();
                  counts.sendLag.recordValue(
                      Math.min(RateSchedule.latencyMicros(due, now), HIGHEST_US));
                }
                // The deadline the caller gives up at and tells the server (client_timeout): from
                // the send, as the channel's callTimeout counts. Latency counts from the due time;
                // a level whose calls went out late by a share of the deadline is not judged.
                long deadlineWall = OverloadHandler.wallMicros() + deadlineMicros;
                call(lane, payload(deadlineWall, i))
                    .whenComplete((r, t) -> finish(counts, measured, due, deadlineNanos, t));
                lane = (lane + 1) % channels.size();
              }
            },
            "bench-overload-sender");
    sender.setDaemon(true);
    sender.start();
    sleepUntil(windowStart);
    counts.admitted.getIntervalHistogram();
    window.accept(true);
    sleepUntil(windowEnd);
    window.accept(false);
    sender.join(TimeUnit.SECONDS.toMillis(10));
    long drainEnd = System.nanoTime() + deadlineNanos + TimeUnit.SECONDS.toNanos(1);
    while (counts.outstanding.get() > 0 && System.nanoTime() < drainEnd) {
      Thread.sleep(5);
    }
    Histogram lat = counts.admitted.getIntervalHistogram();
    Histogram lag = counts.sendLag.getIntervalHistogram();
    double seconds = duration.toNanos() / 1e9;
    return new OverloadResult.Level(
        factor,
        rate,
        counts.sent.sum() / seconds,
        lag.getTotalCount() > 0 ? lag.getValueAtPercentile(99) : 0,
        lag.getTotalCount() > 0 ? lag.getMaxValue() : 0,
        counts.inTime.sum() / seconds,
        counts.sent.sum(),
        counts.inTime.sum(),
        counts.lateReplies.sum(),
        lat.getTotalCount() > 0 ? lat.getValueAtPercentile(50) : -1,
        lat.getTotalCount() > 0 ? lat.getValueAtPercentile(99) : -1,
        counts.notRun.sum(),
        counts.shedAtDeadline.sum(),
        counts.timedOut.sum(),
        counts.otherErrors.sum() + counts.outstanding.get(),
        -1,
        -1);
  }

  private void finish(Counts counts, boolean measured, long due, long deadlineNanos, Throwable t) {
    if (!measured) {
      return;
    }
    long now = System.nanoTime();
    if (t == null) {
      long took = now - due;
      if (took <= deadlineNanos) {
        counts.inTime.increment();
      } else {
        counts.lateReplies.increment();
      }
      counts.admitted.recordValue(Math.min(RateSchedule.latencyMicros(due, now), HIGHEST_US));
    } else {
      switch (outcome(t)) {
        case NOT_RUN -> counts.notRun.increment();
        case SHED_AT_DEADLINE -> counts.shedAtDeadline.increment();
        case TIMED_OUT -> counts.timedOut.increment();
        case OTHER -> {
          counts.otherErrors.increment();
          if (counts.otherErrors.sum() <= ERRORS_PRINTED) {
            System.err.println("overload: " + label + ": call failed: " + AsyncUnwrap.cause(t));
          }
        }
      }
    }
    counts.outstanding.decrementAndGet();
  }

  /** How a failed call ended, as the report counts it. */
  enum Failure {
    /** The server answered "not run" ({@link NotRun}). */
    NOT_RUN,
    /** The server answered that the caller's deadline passed before the handler would start. */
    SHED_AT_DEADLINE,
    /** The client gave up at the deadline. */
    TIMED_OUT,
    OTHER
  }

  static Failure outcome(Throwable failure) {
    Throwable t = AsyncUnwrap.cause(failure);
    if (NotRun.isNotRun(t)) {
      return Failure.NOT_RUN;
    }
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof CallTimeoutException) {
        return Failure.TIMED_OUT;
      }
      if (c instanceof TApplicationException
          && ((TApplicationException) c).getType() == TApplicationException.INTERNAL_ERROR
          && c.getMessage() != null
          && c.getMessage().contains("deadline")
          && c.getMessage().contains("not started")) {
        return Failure.SHED_AT_DEADLINE;
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return Failure.OTHER;
  }

  private static void sleepUntil(long deadline) throws InterruptedException {
    for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime()) {
      TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
    }
  }

  @Override
  public void close() {
    for (ThriftChannel c : channels) {
      Lanes.closeQuietly(c);
    }
    Lanes.closeQuietly(io);
  }
}
