package io.thriftnio.core.internal.server;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many of a server's calls run at once on its own threads while they compute ({@code WORKER}:
 * its worker pool; {@code LEADER_FOLLOWER}: its reading threads): about one per processor, so that
 * a CPU-bound service offered more than it can do keeps its calls waiting in sight (where the
 * queue-time bound and the callers' deadlines shed them) instead of sharing the CPU among all its
 * threads. A {@code WORKER} call takes a permit ({@link #enter}) for its run; a {@code
 * LEADER_FOLLOWER} read batch takes one for all its calls, for at most a short wait ({@code
 * CallSequencer}), since the connection's later requests wait unread meanwhile.
 *
 * <p>Why: with 64 workers on one CPU and a handler that computes for 100 us, every call started at
 * once and then took 64 times its work, and the IO thread competed with the 64 for the CPU, so
 * requests waited unread in the socket; at twice its capacity such a server answered 9 to 12% of
 * its 1x goodput in time and ran thousands of calls whose callers had given up (issue 41). A call
 * that waits for a permit here waits as it would for a worker: its time counts toward its deadlines
 * and the queue-time bound.
 *
 * <pre>
 *   every 10 ms, one call is measured on its thread (SchedStat), from its start to its reply made
 *     (not the reply's write, whose locks and IO are the connection's): CPU time, and time waiting
 *     for a CPU; what it would take with a CPU of its own = wall time - time waiting for a CPU
 *   the medians of the last 15 measures: CPU per call, and the CPU's share of a call's own time
 *   calls under 80 us of CPU, or no measure (not Linux):  open (no permit taken)
 *   else: permits = processors / share, at least one per processor, at most the workers
 *     (a call on the CPU half its time: two per processor; a call that mostly waits: open)
 * </pre>
 *
 * <p>The limit follows the measured calls, not the load: a service whose calls wait on a database
 * stays open however slow the database gets, and one whose calls compute is bounded at light load
 * too, where the bound costs nothing (a call rarely finds the permits taken). Calls under 80 us are
 * too short for the CPU's sharing to stretch them (a scheduler's slice is milliseconds), and a
 * permit each would cost them a wake-up. Not lower: a 1 us echo measures 25 to 100 us before the
 * JIT has compiled it, and 40 to 60 us while it runs cold, one turn at a time; with the line at 50
 * us a leader-follower echo server stayed bounded (its calls cold because bounded) and cost 17 us
 * per call instead of 7.
 *
 * <p>Thread-safety: permits are a fair {@link Semaphore} (first come, first served); the last
 * measures, and a resize of the permits, are under {@link #lock}, so that permits free plus permits
 * held always equal the limit of the moment (a measure ends about every 10 ms: the lock is not on a
 * call's path); the log line of a resize is written after it. A call that entered while the gate
 * was open holds no permit, so a gate that closes lets the calls already running finish outside it.
 */
final class RunGate {

  private static final Logger log = LoggerFactory.getLogger(RunGate.class);

  /** Calls that take less CPU than this run without a permit. */
  static final Duration MIN_CPU_PER_CALL = Duration.ofNanos(80_000);

  /** How often one call is measured. */
  static final Duration SAMPLE_EVERY = Duration.ofMillis(10);

  /** A share of {@code 1 << SHARE_BITS} is a call on the CPU all its own time. */
  static final int SHARE_BITS = 10;

  private static final int WHOLE = 1 << SHARE_BITS;

  /**
   * How many of the last measures decide, by their medians: a measure that a pause of the whole JVM
   * (a collection) or a preemption by another process stretched is one of them, not an average it
   * drags down.
   */
  static final int WINDOW = 15;

  private static final VarHandle NEXT_SAMPLE;

  static {
    try {
      NEXT_SAMPLE =
          MethodHandles.lookup().findVarHandle(RunGate.class, "nextSampleNanos", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final int processors;
  private final int max;
  private final long minCpuNanos;
  private final long sampleEveryNanos;
  private final Permits permits;
  private final Object lock = new Object();

  /** The permits of the moment; {@link #max}: open. Written under {@link #lock}. */
  private volatile int limit;

  @SuppressWarnings("unused") // through NEXT_SAMPLE
  private volatile long nextSampleNanos;

  /** The last {@link #WINDOW} measures' CPU per call, nanoseconds. */
  @GuardedBy("lock")
  private final long[] cpuSamples = new long[WINDOW];

  /** The last {@link #WINDOW} measures' share of a call's own time on the CPU. */
  @GuardedBy("lock")
  private final int[] shareSamples = new int[WINDOW];

  /** Measures taken. */
  @GuardedBy("lock")
  private int samples;

  /**
   * @param processors the processors this JVM may use, at least 1
   * @param max the workers: the limit when open, and the most it may be
   * @param minCpuPerCall calls that take less CPU than this run without a permit
   * @param sampleEvery how often one call is measured
   */
  RunGate(int processors, int max, Duration minCpuPerCall, Duration sampleEvery) {
    if (processors < 1 || max < 1) {
      throw new IllegalArgumentException(
          "processors " + processors + ", max " + max + " (expected: >= 1)");
    }
    this.processors = processors;
    this.max = max;
    this.minCpuNanos = CallDeadlines.nanos(minCpuPerCall);
    this.sampleEveryNanos = CallDeadlines.nanos(sampleEvery);
    this.permits = new Permits(max);
    this.limit = max;
  }

  /**
   * For a server's own {@code workers} threads (its pool, or its leader-follower threads), where a
   * thread's counters can be read here; {@code null} elsewhere.
   */
  static RunGate forWorkers(int workers) {
    if (!SchedStat.available()) {
      return null;
    }
    int processors = Math.max(1, Runtime.getRuntime().availableProcessors());
    return new RunGate(processors, workers, MIN_CPU_PER_CALL, SAMPLE_EVERY);
  }

  /**
   * The permits for calls that take {@code cpuNanos} of CPU each, on the CPU {@code share} of their
   * own time (out of {@code 1 << SHARE_BITS}): {@code max} when they are short or unmeasured, else
   * {@code processors / share}, at least {@code processors}, at most {@code max}. Pure.
   */
  static int limitFor(int processors, int max, long minCpuNanos, long cpuNanos, int share) {
    if (cpuNanos < minCpuNanos || share <= 0) {
      return max;
    }
    long k = ((long) processors * WHOLE + share / 2) / share;
    return (int) Math.max(Math.min(processors, max), Math.min(max, k));
  }

  /** Whether a call must take a permit to run now. */
  boolean bounded() {
    return limit < max;
  }

  /** The permits of the moment; the workers when open. */
  int limit() {
    return limit;
  }

  /** Whether calls wait for a permit. */
  boolean hasWaiters() {
    return permits.hasQueuedThreads();
  }

  /**
   * Takes a permit, waiting at most {@code waitNanos} ({@link Long#MAX_VALUE}: until one is free,
   * or the thread is interrupted).
   *
   * @return whether one was taken; if so {@link #leave} gives it back
   */
  boolean enter(long waitNanos) {
    try {
      if (waitNanos == Long.MAX_VALUE) {
        permits.acquire();
        return true;
      }
      return permits.tryAcquire(Math.max(0, waitNanos), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      // The pool is shutting down (shutdownNow): the call goes on without a permit, to be run or
      // answered as a closing server's.
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Gives back a permit {@link #enter} took. */
  void leave() {
    permits.release();
  }

  /**
   * A measure of the call about to run on this thread at {@code now} ({@link System#nanoTime}),
   * when one is due; {@code null} for most calls. {@link Measure#end} it on the same thread once
   * the handler has made its reply.
   */
  Measure measure(long now) {
    long next = (long) NEXT_SAMPLE.getVolatile(this);
    if (now - next < 0 || !NEXT_SAMPLE.compareAndSet(this, next, now + sampleEveryNanos)) {
      return null;
    }
    long[] start = new long[2];
    if (!SchedStat.begin(start)) {
      return null;
    }
    return new Measure(this, start[0], start[1], System.nanoTime());
  }

  /** One call's measure, begun and ended on its thread. */
  static final class Measure {
    private final RunGate gate;
    private final Thread thread = Thread.currentThread();
    private final long cpu;
    private final long waitedForCpu;
    private final long startNanos;

    private Measure(RunGate gate, long cpu, long waitedForCpu, long startNanos) {
      this.gate = gate;
      this.cpu = cpu;
      this.waitedForCpu = waitedForCpu;
      this.startNanos = startNanos;
    }

    /** Whether this thread began it: only that thread's counters measure the call. */
    boolean onThisThread() {
      return Thread.currentThread() == thread;
    }

    /** Ends it (on the thread that began it) and gives the gate the sample. */
    void end() {
      long wall = System.nanoTime() - startNanos;
      long[] now = new long[2];
      if (SchedStat.end(now)) {
        long c = now[0] - cpu;
        gate.sample(c, Math.max(c, wall - (now[1] - waitedForCpu)));
      }
    }
  }

  /**
   * One call took {@code cpu} of CPU and would have taken {@code own} with a CPU to itself
   * (nanoseconds).
   */
  void sample(long cpu, long own) {
    if (own <= 0 || cpu < 0) {
      return;
    }
    int s = (int) Math.min(WHOLE, cpu * WHOLE / own);
    if (log.isTraceEnabled()) {
      log.trace("A call measured: {} ns of CPU, {} ns with a CPU of its own", cpu, own);
    }
    int was;
    int wanted;
    long medianCpu;
    int medianShare;
    synchronized (lock) {
      int i = samples++ % WINDOW;
      cpuSamples[i] = cpu;
      shareSamples[i] = s;
      int n = Math.min(samples, WINDOW);
      medianCpu = median(cpuSamples, n);
      medianShare = (int) median(shareSamples, n);
      // No bound before a whole window of measures: a fresh JVM's first calls run before the JIT
      // and look like computing ones (CI: a sample service's four sleeping calls ran two at a time
      // after two cold calls had bounded the gate).
      wanted =
          samples < WINDOW ? max : limitFor(processors, max, minCpuNanos, medianCpu, medianShare);
      was = limit;
      if (wanted == was) {
        return;
      }
      if (wanted > was) {
        permits.release(wanted - was);
      } else {
        permits.reduce(was - wanted);
      }
      limit = wanted;
    }
    if (log.isDebugEnabled()) {
      log.debug(
          "Calls running at once: {} (was {}): {} us of CPU per call, on the CPU {}% of their own"
              + " time (medians of the last {} measures), {} processors, {} workers",
          wanted == max ? "open" : wanted,
          was == max ? "open" : was,
          medianCpu / 1000,
          medianShare * 100 / WHOLE,
          WINDOW,
          processors,
          max);
    }
  }

  /** The median of the first {@code n} values. */
  private static long median(long[] values, int n) {
    long[] sorted = Arrays.copyOf(values, n);
    Arrays.sort(sorted);
    return sorted[n / 2];
  }

  private static long median(int[] values, int n) {
    int[] sorted = Arrays.copyOf(values, n);
    Arrays.sort(sorted);
    return sorted[n / 2];
  }

  /** A fair semaphore whose permits can be taken away. */
  private static final class Permits extends Semaphore {
    private static final long serialVersionUID = 1L;

    Permits(int permits) {
      super(permits, true);
    }

    void reduce(int by) {
      reducePermits(by);
    }
  }

  @Override
  public String toString() {
    return "RunGate[limit=" + (bounded() ? limit : "open") + ", max " + max + "]";
  }
}
