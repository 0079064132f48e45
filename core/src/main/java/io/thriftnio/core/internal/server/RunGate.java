package io.thriftnio.core.internal.server;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many of a server's calls run at once on its own threads while they compute ({@code WORKER}:
 * its worker pool; {@code LEADER_FOLLOWER}: its reading threads): about one per processor, so that
 * a CPU-bound service offered more than it can do keeps its calls waiting in sight (where the
 * queue-time bound and the callers' deadlines shed them) instead of sharing the CPU among all its
 * threads. A {@code LEADER_FOLLOWER} read batch takes a permit ({@link #enter}) for all its calls,
 * for at most a short wait ({@code CallSequencer}), since the connection's later requests wait
 * unread meanwhile. A {@code WORKER} call takes one for its run ({@link #enterOrQueue}), and a call
 * that finds none free waits for it as a task in the gate's queue, not as a parked thread: the
 * thread that gives a permit back runs the next queued call with it ({@link #after}), so that a
 * bounded server's one computing worker goes from call to call without a wake-up, and the IO thread
 * queues a call here directly ({@link #queueIfFull}) instead of waking a worker only to park it.
 *
 * <p>Why the queue: with a worker thread parked on the permits per waiting call, each call cost a
 * worker's wake-up to take it from the pool, its park on the permits, and a second wake-up when its
 * turn came; on one CPU at twice the capacity of a 100 us handler the 64 workers' switches took the
 * CPU that the calls needed: {@code netty/worker} answered 0.70 to 1.13 of its 1x goodput at 2x in
 * the {@code overload} bench, where the same server with two workers, whose waiting calls stayed in
 * the pool's queue, answered 0.95 to 0.99; with the queue, 0.92 to 1.45 in eight runs, and a median
 * of 6,457 calls/s in time at 2x against 5,811 before (issue 41).
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
 *   an open gate stays open while the JIT compiled more than a twentieth of the time the last 15
 *     measures took: they may describe calls it had not compiled yet
 *   while calls are held back, every 20 ms: if calls wait for a permit and a quarter of the
 *     permits (at least one) were held through the last 20 ms by threads on the CPU less than a
 *     quarter of it and asleep now: open, and forget the measures (a late look judges nothing)
 * </pre>
 *
 * <p>The last rule is the gate's safety valve: the measures describe calls that have ended, so
 * calls that change what they do (cold calls that computed before the JIT, then calls that block
 * for seconds) would otherwise keep a bound whose holders block while the calls behind them wait
 * and the processors idle, until eight of the new calls had ended and been measured. Each look
 * reads its holders' CPU time, so the next sees how much of the interval each holder that held its
 * permit throughout spent on the CPU. Holders of computing calls are on the CPU (or, if they last,
 * mostly so), so a service that computes is not opened. A pause of the whole JVM (a collection's)
 * stops the holders, which then look blocked, but it stops the looks too: a look that comes more
 * than half an interval late judges nothing (first seen in the overload bench, where a valve
 * judging whole holding times opened a CPU-bound server's gate after its pauses). A holder
 * preempted by other processes for three quarters of an interval looks blocked, and opening then
 * costs little, since the processors are taken anyway.
 *
 * <p>The JIT rule keeps a cold server open. Before the JIT has compiled the call path, a 1 us echo
 * measures 50 to 140 us, and on a slow VM for a second or more of full load: a gate bounded then
 * held a leader-follower echo server at its capacity to one call at a time, and its 40 blocking
 * clients had 150 to 7,000 calls answered "no turn to run" in their first second. The JVM's
 * compilation counter ({@link CompilationMXBean}, its compiler threads' times added up) tells that
 * second apart: in 14 such starts, every window of measures over the 80 us line came while the JIT
 * compiled 9.9% of its time or more (often more than 100%), while two in three windows of the warm
 * server came under a twentieth. With a tenth as the rule, one of those starts was bounded at 9.9%
 * and had calls refused. Bursts of compiling later leave a bound already taken as it is. A service
 * whose calls compute is bounded once its code is compiled; one that keeps the JIT busy for good is
 * not bounded, as on a JVM without the counter.
 *
 * <p>The limit follows the measured calls, not the load: a service whose calls wait on a database
 * stays open however slow the database gets, and one whose calls compute is bounded at light load
 * too, where the bound costs nothing (a call rarely finds the permits taken). Calls under 80 us run
 * without a permit, which would cost each a wake-up. That leaves a gap, measured: a service whose
 * calls compute 50 to 70 us each is not bounded, and at twice its capacity answered 8 to 16% of it
 * in time, as unbounded servers did (with the line at 30 us: 0.80 to 1.03x). Not lower: a 1 us echo
 * measures 25 to 100 us before the JIT has compiled it, and on a slower machine near 30 us after,
 * so with the line at 30 us a leader-follower echo server at its capacity (40 blocking clients, one
 * CPU) answered 3,641 and 6,567 calls "no turn to run" in two runs of a few seconds, against 130
 * and 1,369 at 80 us (where its gate bounded it only while cold). (An earlier reading, a
 * leader-follower server left costlier by a spell of the bound, was the bench's load generator
 * losing the clients whose calls were refused.)
 *
 * <p>Thread-safety: permits are a fair {@link Semaphore} (first come, first served); the last
 * measures, and a resize of the permits, are under {@link #lock}, so that permits free plus permits
 * held always equal the limit of the moment (a measure ends about every 10 ms: the lock is not on a
 * call's path); the log line of a resize is written after it. A call that entered while the gate
 * was open holds no permit, so a gate that closes lets the calls already running finish outside it.
 * Queued {@code WORKER} calls are a lock-free queue with its count: a thread that queues a call
 * then looks for a free permit, and a thread that gives one back then looks for a queued call, so
 * no call stays queued while a permit is free. A queued call runs on a worker thread, never under a
 * lock.
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

  /**
   * How often a gate that holds calls back looks at its permits' holders: the interval over which a
   * holder's time on the CPU is judged.
   */
  static final Duration IDLE_CHECK_EVERY = Duration.ofMillis(20);

  /**
   * A holder on the CPU less than {@code 1 / IDLE_FRACTION} of an interval it held its permit
   * throughout is idle; the gate opens when {@code 1 / IDLE_FRACTION} of its permits are.
   */
  static final int IDLE_FRACTION = 4;

  /**
   * An open gate stays open while the JIT compiled more than {@code 1 / JIT_FRACTION} of the time
   * its last {@link #WINDOW} measures took.
   */
  static final int JIT_FRACTION = 20;

  /** The JVM's compiler, if it counts its time; {@code null} if not. */
  private static final CompilationMXBean JIT = compilationCounter();

  /** A JIT clock for a JVM that has none: every measure counts. */
  static final LongSupplier NO_JIT_CLOCK = () -> -1;

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

  /** What the safety valve reads of the permits' holders; {@code null}: no safety valve. */
  private final HolderProbe probe;

  private final Scheduler scheduler;

  /** The JVM's total compilation time, milliseconds; -1 if unknown. */
  private final LongSupplier jitMillis;

  /** The permits taken and not given back, with the safety valve. */
  private final Set<Permit> holders = ConcurrentHashMap.newKeySet();

  /** Calls that found no permit free when they came, since the last look. */
  private final LongAdder heldBack = new LongAdder();

  /** Calls that found no permit in the time they could wait, since the last look. */
  private final LongAdder timedOut = new LongAdder();

  /** {@code WORKER} calls waiting for a permit, first come first served ({@link #enterOrQueue}). */
  private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();

  /**
   * How many calls {@link #queue} holds: counted up before a call is added and down after one is
   * taken, so that it is never less than the queue's size (a holder that sees it above 0 looks).
   */
  private final AtomicInteger queued = new AtomicInteger();

  /**
   * Hands a queued call to the worker pool, for a permit that came free where no worker gives one
   * back (the gate opened or grew, on the timer's or a measuring thread; the IO thread): the call's
   * {@code run} takes its permit there.
   */
  private final Consumer<Runnable> resume;

  /** The most calls {@link #queue} may hold: {@code workerQueueCapacity}. */
  private final int maxQueued;

  /**
   * Whether a look at the holders is scheduled: from the first call held back until a look finds
   * none, or opens the gate.
   */
  @GuardedBy("lock")
  private boolean looking;

  /** When the last look was ({@link System#nanoTime}), or the looks started. */
  @GuardedBy("lock")
  private long lastLookNanos;

  /** The permits of the moment; {@link #max}: open. Written under {@link #lock}. */
  private volatile int limit;

  @SuppressWarnings("unused") // through NEXT_SAMPLE
  private volatile long nextSampleNanos;

  /** When a permit was last taken ({@link System#nanoTime}). */
  private volatile long lastTakenNanos;

  /**
   * The time between two permits taken while calls waited for one, a moving average (an eighth of
   * each new gap): how fast the waiting calls get their turn. Racy updates by two threads at the
   * same instant lose one gap, which the average tolerates.
   */
  private volatile long takenGapNanos;

  /** The last {@link #WINDOW} measures' CPU per call, nanoseconds. */
  @GuardedBy("lock")
  private final long[] cpuSamples = new long[WINDOW];

  /** The last {@link #WINDOW} measures' share of a call's own time on the CPU. */
  @GuardedBy("lock")
  private final long[] shareSamples = new long[WINDOW];

  /** When each of the last {@link #WINDOW} measures was taken ({@link System#nanoTime}). */
  @GuardedBy("lock")
  private final long[] sampleNanos = new long[WINDOW];

  /** The JIT's total compilation time when each was taken, milliseconds; -1 if unknown. */
  @GuardedBy("lock")
  private final long[] sampleJitMillis = new long[WINDOW];

  /** Measures taken. */
  @GuardedBy("lock")
  private int samples;

  /** Whether the last measure found the gate kept open by the JIT: logged when that starts. */
  @GuardedBy("lock")
  private boolean openForTheJit;

  /** What the safety valve reads of a permit's holder: {@link SchedStat#HOLDERS} here. */
  interface HolderProbe {
    /** The calling thread's id in the system (Linux's tid); -1 if unknown. */
    int currentTid();

    /** {@code thread}'s CPU time, nanoseconds; -1 if unknown. */
    long cpuNanos(Thread thread);

    /**
     * Whether the thread of system id {@code tid} is asleep now: neither on a CPU nor waiting for
     * one (blocked in a read, a sleep, a lock); {@code false} if unknown.
     */
    boolean asleep(int tid);
  }

  /** Runs the gate's looks at its holders: the call deadlines' timer thread. */
  interface Scheduler {
    void schedule(Runnable task, long delayNanos);
  }

  /**
   * A gate without the safety valve, whose measures all count (no JIT clock), which resumes a
   * queued call on the thread that frees its permit.
   */
  RunGate(int processors, int max, Duration minCpuPerCall, Duration sampleEvery) {
    this(
        processors,
        max,
        minCpuPerCall,
        sampleEvery,
        null,
        (task, delay) -> {},
        NO_JIT_CLOCK,
        Integer.MAX_VALUE,
        Runnable::run);
  }

  /**
   * @param processors the processors this JVM may use, at least 1
   * @param max the workers: the limit when open, and the most it may be
   * @param minCpuPerCall calls that take less CPU than this run without a permit
   * @param sampleEvery how often one call is measured
   * @param probe what the safety valve reads of a holder; {@code null}: no safety valve
   * @param scheduler runs {@link #lookAtTheHolders} every {@link #IDLE_CHECK_EVERY} while calls are
   *     held back
   * @param jitMillis the JVM's total compilation time, milliseconds, -1 if unknown ({@link
   *     #NO_JIT_CLOCK}: every measure counts)
   * @param maxQueued the most {@code WORKER} calls that may wait for a permit
   * @param resume hands a queued {@code WORKER} call to the worker pool when a permit comes free
   *     where no worker gives one back; never runs it on the calling thread in a server
   */
  RunGate(
      int processors,
      int max,
      Duration minCpuPerCall,
      Duration sampleEvery,
      HolderProbe probe,
      Scheduler scheduler,
      LongSupplier jitMillis,
      int maxQueued,
      Consumer<Runnable> resume) {
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
    this.lastTakenNanos = System.nanoTime(); // a first wait is measured from here, not from 0
    this.probe = probe;
    this.scheduler = scheduler;
    this.jitMillis = jitMillis;
    this.maxQueued = maxQueued;
    this.resume = resume;
  }

  /**
   * For a server's own {@code workers} threads (its pool, or its leader-follower threads), where a
   * thread's counters can be read here; {@code null} elsewhere.
   *
   * @param maxQueued the most {@code WORKER} calls that may wait for a permit ({@code
   *     workerQueueCapacity})
   * @param resume hands a queued call to the worker pool ({@code WORKER}; unused on {@code
   *     LEADER_FOLLOWER}, whose batches wait for their permits on their threads)
   */
  static RunGate forWorkers(int workers, int maxQueued, Consumer<Runnable> resume) {
    if (!SchedStat.available()) {
      return null;
    }
    int processors = Math.max(1, Runtime.getRuntime().availableProcessors());
    return new RunGate(
        processors,
        workers,
        MIN_CPU_PER_CALL,
        SAMPLE_EVERY,
        SchedStat.HOLDERS,
        CallDeadlines::schedule,
        JIT == null ? NO_JIT_CLOCK : JIT::getTotalCompilationTime,
        maxQueued,
        resume);
  }

  private static CompilationMXBean compilationCounter() {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit : null;
  }

  /**
   * Whether the JIT compiled more than {@code 1 / JIT_FRACTION} of {@code spanNanos}: from {@code
   * fromMillis} to {@code toMillis} of its total compilation time (-1: unknown, which counts as not
   * compiling). Pure.
   */
  static boolean jitCompiling(long fromMillis, long toMillis, long spanNanos) {
    return fromMillis >= 0
        && toMillis >= 0
        && (toMillis - fromMillis) * 1_000_000L * JIT_FRACTION > spanNanos;
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

  /** Whether calls wait for a permit: queued, or on their threads. */
  boolean hasWaiters() {
    return queued.get() > 0 || permits.hasQueuedThreads();
  }

  /** How many calls wait for a permit, about (queued, and their threads counted one by one). */
  int waiters() {
    return queued.get() + permits.getQueueLength();
  }

  /**
   * How long a call that comes now would wait for a permit behind {@code waiters} calls, at the
   * rate the waiting calls have been getting theirs, in nanoseconds; 0 with none waiting.
   */
  long waitAhead(int waiters) {
    return waiters * takenGapNanos;
  }

  /**
   * Takes a permit, waiting at most {@code waitNanos} ({@link Long#MAX_VALUE}: until one is free,
   * or the thread is interrupted).
   *
   * @return the permit, which {@link #leave} gives back; {@code null} if none was taken
   */
  Permit enter(long waitNanos) {
    try {
      if (permits.tryAcquire(0, TimeUnit.NANOSECONDS)) { // fair, unlike tryAcquire()
        return taken(System.nanoTime());
      }
      heldBack.increment(); // before the look that may stop the looks reads it
      if (probe != null) {
        startLooking();
      }
      if (waitNanos == Long.MAX_VALUE) {
        permits.acquire();
        return takenAfterWaiting();
      }
      if (permits.tryAcquire(Math.max(0, waitNanos), TimeUnit.NANOSECONDS)) {
        return takenAfterWaiting();
      }
      timedOut.increment();
      return null;
    } catch (InterruptedException e) {
      // The pool is shutting down (shutdownNow): the call goes on without a permit, to be run or
      // answered as a closing server's.
      Thread.currentThread().interrupt();
      return null;
    }
  }

  private Permit takenAfterWaiting() {
    long now = System.nanoTime();
    takenGapNanos += (now - lastTakenNanos - takenGapNanos) >> 3;
    return taken(now);
  }

  private Permit taken(long now) {
    lastTakenNanos = now;
    if (probe == null) {
      return Permit.UNTRACKED;
    }
    Permit p = new Permit(Thread.currentThread(), probe.currentTid());
    holders.add(p);
    return p;
  }

  /** Gives back a permit {@link #enter} took, on any thread. */
  void leave(Permit permit) {
    holders.remove(permit);
    permits.release();
  }

  // ---- WORKER: a call waits for a permit as a task; a worker that gives one back runs it ----

  /**
   * A {@code WORKER} call about to run on this worker thread: takes a permit for it if one is free
   * and no call is queued ahead of it, else queues it.
   *
   * @return the permit, whose {@link Permit#call} is the call to run now on this thread with it
   *     ({@code call}, or, once {@code call} was queued and a permit came free meanwhile, the first
   *     queued call); {@code null}: queued, to be run by a thread that gives a permit back
   */
  Permit enterOrQueue(Runnable call) {
    if (queued.get() == 0 && tryTake()) {
      return takenFor(call);
    }
    queue(call);
    return resumeHere();
  }

  /**
   * Whether as many {@code WORKER} calls wait for a permit as may: a call that would wait too is
   * refused.
   */
  boolean queueFull() {
    return queued.get() >= maxQueued;
  }

  /**
   * The IO thread, about to hand {@code call} to a worker: queues it here instead if the gate is
   * bounded and no permit is free (or calls are queued ahead of it), so that no worker is woken to
   * wait for a permit.
   *
   * @return whether it was queued; if not, it goes to the pool as before
   */
  boolean queueIfFull(Runnable call) {
    if (!bounded() || (queued.get() == 0 && permits.availablePermits() > 0)) {
      return false;
    }
    queue(call);
    resumeFreed(); // a permit given back meanwhile finds the call queued, or this finds the permit
    return true;
  }

  /**
   * After the call {@code permit} was for ran on this thread: keeps the permit for the next queued
   * call, else gives it back (also once the gate's limit came down below the permits held).
   *
   * @return the permit with its next call ({@link Permit#call}), or {@code null} once given back
   */
  Permit after(Permit permit) {
    if (permits.availablePermits() >= 0) {
      Runnable next = poll();
      if (next != null) {
        lastTakenNanos = System.nanoTime();
        permit.call = next;
        return permit;
      }
    }
    leave(permit);
    return resumeHere(); // a call queued after the poll above, while the permit was still held
  }

  /** Gives back a permit whose call failed on this thread; the queued calls go to the pool. */
  void leaveAndResume(Permit permit) {
    leave(permit);
    resumeFreed();
  }

  /** Removes the calls still queued (the server's pool is shut down): they will never run. */
  List<Runnable> takeQueued() {
    List<Runnable> calls = new ArrayList<>();
    for (Runnable c = poll(); c != null; c = poll()) {
      calls.add(c);
    }
    return calls;
  }

  private void queue(Runnable call) {
    queued.incrementAndGet(); // before the add: a holder that polls nothing then looks again
    queue.add(call);
    heldBack.increment(); // before the look that may stop the looks reads it
    if (probe != null) {
      startLooking();
    }
  }

  private Runnable poll() {
    Runnable call = queue.poll();
    if (call != null) {
      queued.decrementAndGet();
    }
    return call;
  }

  /** A permit at once, first come first served with threads waiting on {@link #enter}. */
  private boolean tryTake() {
    try {
      return permits.tryAcquire(0, TimeUnit.NANOSECONDS); // fair, unlike tryAcquire()
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // a pool shutting down: the caller queues the call
      return false;
    }
  }

  private Permit takenFor(Runnable call) {
    long now = System.nanoTime();
    lastTakenNanos = now;
    Permit p = new Permit(Thread.currentThread(), probe == null ? -1 : probe.currentTid());
    if (probe != null) {
      holders.add(p);
    }
    p.call = call;
    return p;
  }

  /**
   * On a worker thread: takes a free permit for the first queued call, to run it here.
   *
   * @return the permit with its call, or {@code null} if none is queued or no permit is free
   */
  private Permit resumeHere() {
    while (queued.get() > 0 && tryTake()) {
      Runnable call = poll();
      if (call != null) {
        return takenFor(call);
      }
      permits.release(); // taken by another holder meanwhile
    }
    return null;
  }

  /**
   * Where no call may run (the IO thread, the timer, a measure that raised the limit): hands a
   * queued call to the worker pool for each permit free, every queued call once the gate is open.
   */
  private void resumeFreed() {
    int free = bounded() ? permits.availablePermits() : Integer.MAX_VALUE;
    for (; free > 0 && queued.get() > 0; free--) {
      Runnable call = poll();
      if (call == null) {
        return;
      }
      resume.accept(call);
    }
  }

  /**
   * A permit taken, and by which thread, for the safety valve; what the last look saw of its holder
   * is written and read by the looks alone, one at a time (a chain of looks stops, under the gate's
   * lock, before the next can start).
   */
  static final class Permit {
    private static final Permit UNTRACKED = new Permit(null, -1); // no safety valve

    private final Thread thread;
    private final int tid;

    /** The look that last saw it ({@link System#nanoTime}); 0: none. */
    private long lookedAtNanos;

    /** Its holder's CPU time at that look, nanoseconds. */
    private long lookedAtCpu;

    /** {@code WORKER}: the call its holder runs with it now; confined to the holder. */
    private Runnable call;

    private Permit(Thread thread, int tid) {
      this.thread = thread;
      this.tid = tid;
    }

    /**
     * {@code WORKER}: the call to run now with this permit ({@link #enterOrQueue}, {@link #after}).
     */
    Runnable call() {
      return call;
    }

    /**
     * A look at {@code now}: whether its holder held it since the last look, at {@code lastLook},
     * was on the CPU less than {@code 1 / IDLE_FRACTION} of the interval, and is asleep now (a
     * holder that computes but waits for a CPU taken by others is not); {@code judge} false (the
     * look came late) only records what it sees.
     */
    boolean idleSince(long lastLook, long now, boolean judge, HolderProbe probe) {
      long cpu = probe.cpuNanos(thread);
      boolean idle =
          judge
              && lookedAtNanos == lastLook
              && cpu >= 0
              && lookedAtCpu >= 0
              && (cpu - lookedAtCpu) * IDLE_FRACTION < now - lastLook
              && probe.asleep(tid);
      lookedAtNanos = now;
      lookedAtCpu = cpu;
      return idle;
    }
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
    long now = System.nanoTime();
    long jit = jitMillis.getAsLong();
    int s = (int) Math.min(WHOLE, cpu * WHOLE / own);
    if (log.isTraceEnabled()) {
      log.trace("A call measured: {} ns of CPU, {} ns with a CPU of its own", cpu, own);
    }
    int was;
    int wanted;
    long medianCpu;
    int medianShare;
    int deferred = 0; // the limit the JIT rule kept from being taken, when it starts to
    long jitSpanMillis = 0;
    long spanNanos = 0;
    synchronized (lock) {
      int i = samples++ % WINDOW;
      cpuSamples[i] = cpu;
      shareSamples[i] = s;
      sampleNanos[i] = now;
      sampleJitMillis[i] = jit;
      int n = Math.min(samples, WINDOW);
      medianCpu = median(cpuSamples, n);
      medianShare = (int) median(shareSamples, n);
      // No bound before a whole window of measures: a fresh JVM's first calls run before the JIT
      // and look like computing ones (CI: a sample service's four sleeping calls ran two at a time
      // after two cold calls had bounded the gate).
      wanted =
          samples < WINDOW ? max : limitFor(processors, max, minCpuNanos, medianCpu, medianShare);
      was = limit;
      boolean keptOpen = false;
      if (wanted < max && was == max) {
        int oldest = samples % WINDOW; // the next to be replaced: taken a whole window ago
        jitSpanMillis = jit - sampleJitMillis[oldest];
        spanNanos = now - sampleNanos[oldest];
        keptOpen = jitCompiling(sampleJitMillis[oldest], jit, spanNanos);
      }
      if (keptOpen && !openForTheJit) {
        deferred = wanted;
      }
      openForTheJit = keptOpen;
      if (keptOpen) {
        wanted = max;
      }
      if (wanted > was) {
        permits.release(wanted - was);
      } else if (wanted < was) {
        permits.reduce(was - wanted);
      }
      limit = wanted;
    }
    if (wanted > was) {
      resumeFreed(); // the calls queued for the permits just added
    }
    if (deferred > 0 && log.isDebugEnabled()) {
      log.debug(
          "Calls running at once: open, not {}: the JIT compiled for {} ms of the last {} ms, so"
              + " the {} us of CPU per call measured may be calls it had not compiled yet",
          deferred,
          jitSpanMillis,
          spanNanos / 1_000_000,
          medianCpu / 1000);
    }
    if (wanted != was && log.isDebugEnabled()) {
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

  /** A call was held back: the safety valve looks at the holders, if it is not looking yet. */
  private void startLooking() {
    synchronized (lock) {
      if (looking || limit == max) {
        return;
      }
      looking = true;
      lastLookNanos = System.nanoTime();
    }
    scheduler.schedule(this::lookAtTheHolders, CallDeadlines.nanos(IDLE_CHECK_EVERY));
  }

  /**
   * The safety valve's look, on the timer thread while calls are held back: opens the gate if calls
   * wait for a permit and a quarter of the permits (at least one) were held through the last
   * interval by idle holders ({@link Permit#idleSince}; see the class's comment); else looks again
   * later, unless no call was held back since the last look (the next one held back starts the
   * looks again: a server without calls, or a closed one, has none scheduled).
   */
  void lookAtTheHolders() {
    if (lookedAt(System.nanoTime())) {
      scheduler.schedule(this::lookAtTheHolders, CallDeadlines.nanos(IDLE_CHECK_EVERY));
    }
  }

  /**
   * A look at {@code now} ({@link System#nanoTime}): opens the gate if its holders idle while calls
   * wait.
   *
   * @return whether to look again
   */
  boolean lookedAt(long now) {
    long lastLook;
    synchronized (lock) {
      lastLook = lastLookNanos;
      lastLookNanos = now;
    }
    // Late: a pause of the whole JVM (or a starved timer) stopped the holders too.
    boolean onTime = now - lastLook <= CallDeadlines.nanos(IDLE_CHECK_EVERY) * 3 / 2;
    int idle = 0;
    for (Permit p : holders) { // the holders' CPU: read outside the lock
      if (p.idleSince(lastLook, now, onTime, probe)) {
        idle++;
      }
    }
    int was;
    synchronized (lock) {
      // Read under the lock: a call held back after this read finds looking false in
      // startLooking (which takes the lock after counting itself) and starts the looks again.
      boolean waiting = timedOut.sumThenReset() > 0 || hasWaiters();
      boolean held = heldBack.sumThenReset() > 0 || waiting;
      if (limit == max || !held) {
        looking = false; // opened by its measures, or nothing held back
        return false;
      }
      was = limit;
      if (!waiting || idle == 0 || idle * IDLE_FRACTION < was) {
        return true;
      }
      permits.release(max - was);
      limit = max;
      samples = 0; // the measures that bounded it described other calls
      looking = false;
    }
    resumeFreed(); // open: every queued call to the pool
    if (log.isDebugEnabled()) {
      log.debug(
          "Calls running at once: open (was {}): calls wait for a permit while {} of its holders"
              + " were on the CPU less than 1/{} of the last {} us; the measures start again",
          was,
          idle,
          IDLE_FRACTION,
          (now - lastLook) / 1_000);
    }
    return false;
  }

  /** The median of the first {@code n} values. */
  private static long median(long[] values, int n) {
    long[] sorted = Arrays.copyOf(values, n);
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
