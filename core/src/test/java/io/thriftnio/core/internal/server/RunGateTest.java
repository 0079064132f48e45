package io.thriftnio.core.internal.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class RunGateTest {

  private static final long US = 1_000;
  private static final long MS = 1_000_000;
  private static final int WHOLE = 1 << RunGate.SHARE_BITS;

  private static RunGate gate(int processors, int workers) {
    return new RunGate(processors, workers, RunGate.MIN_CPU_PER_CALL, RunGate.SAMPLE_EVERY);
  }

  /**
   * A gate of 8 workers without the safety valve whose queue holds {@code maxQueued} calls and
   * resumes them with {@code resume}.
   */
  private static RunGate workerGate(
      int processors, int maxQueued, java.util.function.Consumer<Runnable> resume) {
    return new RunGate(
        processors,
        8,
        RunGate.MIN_CPU_PER_CALL,
        RunGate.SAMPLE_EVERY,
        null,
        (task, delay) -> {},
        RunGate.NO_JIT_CLOCK,
        maxQueued,
        resume);
  }

  /** Feeds {@code n} measures of calls that take {@code cpu} and would take {@code own} alone. */
  private static void feed(RunGate gate, int n, long cpu, long own) {
    for (int i = 0; i < n; i++) {
      gate.sample(cpu, own);
    }
  }

  @Test
  void thePermitsFollowWhatTheCallsDoOnTheCpu() {
    long min = RunGate.MIN_CPU_PER_CALL.toNanos();
    // short calls, or no measure: every worker
    assertThat(RunGate.limitFor(1, 64, min, 10 * US, WHOLE)).isEqualTo(64);
    assertThat(RunGate.limitFor(1, 64, min, 100 * US, 0)).isEqualTo(64);
    // calls that compute all their own time: one per processor
    assertThat(RunGate.limitFor(1, 64, min, 100 * US, WHOLE)).isEqualTo(1);
    assertThat(RunGate.limitFor(4, 64, min, 100 * US, WHOLE)).isEqualTo(4);
    // half of it: two per processor
    assertThat(RunGate.limitFor(4, 64, min, 100 * US, WHOLE / 2)).isEqualTo(8);
    // calls that mostly wait: every worker
    assertThat(RunGate.limitFor(2, 64, min, 5 * MS, 2)).isEqualTo(64);
    // fewer workers than processors: the workers
    assertThat(RunGate.limitFor(8, 4, min, 100 * US, WHOLE)).isEqualTo(4);
  }

  @Test
  void computingCallsBoundTheGateAndCallsThatWaitOpenIt() {
    RunGate gate = gate(2, 16);
    assertThat(gate.bounded()).isFalse();
    feed(gate, RunGate.WINDOW - 1, 100 * US, 100 * US);
    assertThat(gate.bounded()).as("not before a whole window of measures").isFalse();
    gate.sample(100 * US, 100 * US);
    assertThat(gate.bounded()).isTrue();
    assertThat(gate.limit()).isEqualTo(2);
    // calls now wait on something else for most of their time (5 ms alone, 20 us of CPU)
    feed(gate, RunGate.WINDOW / 2, 20 * US, 5 * MS);
    assertThat(gate.bounded()).as("the medians still say: computing").isTrue();
    feed(gate, 1, 20 * US, 5 * MS);
    assertThat(gate.bounded()).as("a majority of the last measures: waiting").isFalse();
    assertThat(gate.limit()).isEqualTo(16);
  }

  @Test
  void theJitCompilingMoreThanATwentiethOfTheMeasuresTimeIsSeen() {
    long span = 150 * MS;
    assertThat(RunGate.jitCompiling(1_000, 1_008, span)).as("8 ms of 150").isTrue();
    assertThat(RunGate.jitCompiling(1_000, 1_007, span)).as("7 ms of 150").isFalse();
    assertThat(RunGate.jitCompiling(1_000, 1_000, span)).isFalse();
    assertThat(RunGate.jitCompiling(1_000, 2_000, 0)).isTrue();
    assertThat(RunGate.jitCompiling(-1, 2_000, span)).as("unknown: not compiling").isFalse();
    assertThat(RunGate.jitCompiling(1_000, -1, span)).isFalse();
  }

  @Test
  void aGateStaysOpenWhileTheJitCompilesAndIsBoundedOnceAWindowWasMeasuredWithout() {
    AtomicLong jitMillis = new AtomicLong(500);
    RunGate gate =
        new RunGate(
            1,
            64,
            RunGate.MIN_CPU_PER_CALL,
            RunGate.SAMPLE_EVERY,
            null,
            (task, delay) -> {},
            jitMillis::get,
            Integer.MAX_VALUE,
            Runnable::run);
    for (int i = 0; i < 3 * RunGate.WINDOW; i++) {
      jitMillis.addAndGet(1_000); // far more than the measures took
      gate.sample(100 * US, 100 * US);
    }
    assertThat(gate.bounded()).as("cold measures while the JIT compiles").isFalse();
    // The JIT is done: once the oldest measure of the window was taken after it, the measures
    // count.
    feed(gate, RunGate.WINDOW - 2, 100 * US, 100 * US);
    assertThat(gate.bounded())
        .as("a measure of the window was taken while the JIT compiled")
        .isFalse();
    gate.sample(100 * US, 100 * US);
    assertThat(gate.limit()).isEqualTo(1);
    // The JIT compiles again: a bound once taken stays, following the measures.
    jitMillis.addAndGet(10_000);
    feed(gate, RunGate.WINDOW, 100 * US, 100 * US);
    assertThat(gate.limit()).isEqualTo(1);
    feed(gate, RunGate.WINDOW, 100 * US, 200 * US); // on the CPU half their time
    assertThat(gate.limit()).isEqualTo(2);
  }

  @Test
  void measuresStretchedByAPauseOfTheWholeJvmDoNotOpenTheGate() {
    RunGate gate = gate(1, 64);
    feed(gate, RunGate.WINDOW, 100 * US, 100 * US);
    assertThat(gate.limit()).isEqualTo(1);
    // a collection stopped every thread in three of them: blocked, neither on a CPU nor waiting
    feed(gate, 3, 100 * US, 10 * MS);
    assertThat(gate.limit()).isEqualTo(1);
  }

  @Test
  void aBoundedGateLetsInAsManyCallsAsItHasPermits() {
    RunGate gate = gate(1, 8);
    feed(gate, RunGate.WINDOW, 100 * US, 100 * US);
    RunGate.Permit p = gate.enter(0);
    assertThat(p).isNotNull();
    assertThat(gate.enter(0)).as("the one permit is taken").isNull();
    gate.leave(p);
    p = gate.enter(0);
    assertThat(p).isNotNull();
    gate.leave(p);
  }

  @Test
  void aCallWaitingForAPermitGetsTheOneGivenBack() throws Exception {
    RunGate gate = gate(1, 8);
    feed(gate, RunGate.WINDOW, 100 * US, 100 * US);
    RunGate.Permit p = gate.enter(0);
    CompletableFuture<RunGate.Permit> waiter =
        CompletableFuture.supplyAsync(() -> gate.enter(Long.MAX_VALUE));
    await().atMost(Duration.ofSeconds(10)).until(gate::hasWaiters);
    assertThat(waiter).isNotDone();
    gate.leave(p);
    p = waiter.get(10, TimeUnit.SECONDS);
    assertThat(p).isNotNull();
    assertThat(gate.hasWaiters()).isFalse();
    gate.leave(p);
  }

  @Test
  void theWaitAheadFollowsHowFastWaitingCallsGetTheirPermit() throws Exception {
    RunGate gate = gate(1, 8);
    feed(gate, RunGate.WINDOW, 100 * US, 100 * US);
    RunGate.Permit held = gate.enter(0);
    assertThat(gate.waitAhead(5)).as("no call has waited yet: no estimate").isZero();
    // Sixteen calls, one after the other, each waiting for the permit its predecessor holds for at
    // least 2 ms: the permits taken after a wait come at least 2 ms apart.
    for (int i = 0; i < 16; i++) {
      CompletableFuture<RunGate.Permit> waiter =
          CompletableFuture.supplyAsync(() -> gate.enter(Long.MAX_VALUE));
      await().atMost(Duration.ofSeconds(10)).until(gate::hasWaiters);
      Thread.sleep(2);
      gate.leave(held);
      held = waiter.get(10, TimeUnit.SECONDS);
    }
    gate.leave(held);
    // The average moves an eighth of the way each time: after 16 gaps of 2 ms or more, over 1.7 ms.
    assertThat(gate.waitAhead(1)).isGreaterThan(17 * MS / 10);
    assertThat(gate.waitAhead(0)).isZero();
  }

  @Test
  void aCallWaitsNoLongerThanItMay() {
    RunGate gate = gate(1, 8);
    feed(gate, RunGate.WINDOW, 100 * US, 100 * US);
    RunGate.Permit p = gate.enter(0);
    assertThat(p).isNotNull();
    assertThat(gate.enter(TimeUnit.MILLISECONDS.toNanos(20))).isNull();
    assertThat(gate.hasWaiters()).isFalse();
    gate.leave(p);
  }

  @Test
  void aWorkerCallThatFindsNoPermitIsQueuedAndRunByTheThreadThatGivesOneBack() {
    RunGate gate = gate(1, 8);
    Runnable a = () -> {};
    Runnable b = () -> {};
    Runnable c = () -> {};
    assertThat(gate.queueIfFull(a)).as("open: every call to the pool").isFalse();
    feed(gate, RunGate.WINDOW, 100 * US, 100 * US);
    RunGate.Permit p = gate.enterOrQueue(a);
    assertThat(p).isNotNull();
    assertThat(p.call()).isSameAs(a);
    assertThat(gate.enterOrQueue(b)).as("the one permit is a's: b waits as a task").isNull();
    assertThat(gate.queueIfFull(c)).as("the IO thread queues c behind b").isTrue();
    assertThat(gate.waiters()).isEqualTo(2);
    // a's thread runs b, then c, with a's permit: no thread was woken for them
    assertThat(gate.after(p)).isSameAs(p);
    assertThat(p.call()).isSameAs(b);
    assertThat(gate.after(p)).isSameAs(p);
    assertThat(p.call()).isSameAs(c);
    assertThat(gate.after(p)).as("nothing queued: given back").isNull();
    assertThat(gate.hasWaiters()).isFalse();
    RunGate.Permit d = gate.enterOrQueue(b);
    assertThat(d).as("the permit is free again").isNotNull();
    assertThat(gate.queueIfFull(c)).isTrue();
    assertThat(gate.after(d).call()).isSameAs(c);
    assertThat(gate.after(d)).isNull();
  }

  @Test
  void asManyWorkerCallsWaitForAPermitAsTheQueueMayHold() {
    RunGate gate = workerGate(1, 2, Runnable::run);
    feed(gate, RunGate.WINDOW, 100 * US, 100 * US);
    RunGate.Permit p = gate.enterOrQueue(() -> {});
    assertThat(gate.queueIfFull(() -> {})).isTrue();
    assertThat(gate.queueFull()).isFalse();
    assertThat(gate.enterOrQueue(() -> {})).isNull();
    assertThat(gate.queueFull()).as("two wait: the most it may hold").isTrue();
    assertThat(gate.after(p)).isSameAs(p);
    assertThat(gate.queueFull()).isFalse();
  }

  @Test
  void noQueuedWorkerCallIsLeftWhileAPermitIsFree() throws Exception {
    // Workers and an IO thread race: every call runs once, never more than the limit at once.
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      AtomicInteger running = new AtomicInteger();
      AtomicInteger most = new AtomicInteger();
      int calls = 20_000;
      CountDownLatch done = new CountDownLatch(calls);
      AtomicReference<RunGate> ref = new AtomicReference<>();
      RunGate gate = workerGate(2, Integer.MAX_VALUE, pool::execute);
      ref.set(gate);
      feed(gate, RunGate.WINDOW, 100 * US, 100 * US);
      assertThat(gate.limit()).isEqualTo(2);
      class Work implements Runnable {
        @Override
        public void run() { // as CallSequencer.Call.run on a worker of a bounded gate
          RunGate g = ref.get();
          for (RunGate.Permit p = g.enterOrQueue(this); p != null; p = g.after(p)) {
            most.accumulateAndGet(running.incrementAndGet(), Math::max);
            Thread.onSpinWait();
            running.decrementAndGet();
            done.countDown();
          }
        }
      }
      for (int i = 0; i < calls; i++) {
        Work w = new Work();
        if (!gate.queueIfFull(w)) { // the IO thread's dispatch
          pool.execute(w);
        }
      }
      assertThat(done.await(15, TimeUnit.SECONDS))
          .as("calls left: %s, queued: %s", done.getCount(), gate.waiters())
          .isTrue();
      assertThat(most.get()).isLessThanOrEqualTo(2);
      assertThat(gate.hasWaiters()).isFalse();
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void permitsHeldAcrossAResizeAreStillCounted() {
    RunGate gate = gate(1, 8);
    feed(gate, RunGate.WINDOW, 100 * US, 100 * US);
    RunGate.Permit p = gate.enter(0); // held from here to the end
    assertThat(p).isNotNull();
    feed(gate, RunGate.WINDOW, 20 * US, 5 * MS);
    assertThat(gate.bounded()).isFalse();
    feed(gate, RunGate.WINDOW, 100 * US, 100 * US);
    assertThat(gate.limit()).isEqualTo(1);
    assertThat(gate.enter(0)).as("the permit taken before is still out").isNull();
    gate.leave(p);
    p = gate.enter(0);
    assertThat(p).isNotNull();
    gate.leave(p);
  }

  @Test
  void oneCallInAnIntervalIsMeasured() {
    assumeTrue(SchedStat.available(), "no per-thread scheduler statistics here");
    RunGate gate = new RunGate(1, 8, RunGate.MIN_CPU_PER_CALL, Duration.ofHours(1));
    feed(gate, RunGate.WINDOW - 1, 2 * MS, 2 * MS);
    RunGate.Measure m = gate.measure(System.nanoTime());
    assertThat(m).isNotNull();
    assertThat(gate.measure(System.nanoTime())).as("the next is an interval away").isNull();
    assertThat(m.onThisThread()).isTrue();
    long spin = System.nanoTime() + 2 * MS; // computes: on the CPU, or waiting for it
    long x = 0;
    while (System.nanoTime() - spin < 0) {
      x += x * 31 + 7;
    }
    assertThat(x).isNotEqualTo(1);
    m.end();
    assertThat(gate.limit()).as("a call of 2 ms of CPU").isEqualTo(1);
  }

  /** The safety valve's world: each thread's CPU time and the looks scheduled, set by hand. */
  private static final class Valve {
    final Map<Thread, Long> cpu = new ConcurrentHashMap<>();
    volatile boolean asleep = true;
    final List<Runnable> looks = new ArrayList<>();
    final List<Runnable> resumed = new CopyOnWriteArrayList<>();
    final RunGate gate;

    Valve(int processors, int workers) {
      gate =
          new RunGate(
              processors,
              workers,
              RunGate.MIN_CPU_PER_CALL,
              RunGate.SAMPLE_EVERY,
              new RunGate.HolderProbe() {
                @Override
                public int currentTid() {
                  return 1;
                }

                @Override
                public long cpuNanos(Thread thread) {
                  return cpu.getOrDefault(thread, 0L);
                }

                @Override
                public boolean asleep(int tid) {
                  return asleep;
                }
              },
              (task, delay) -> {
                assertThat(delay).isEqualTo(RunGate.IDLE_CHECK_EVERY.toNanos());
                synchronized (looks) {
                  looks.add(task);
                }
              },
              RunGate.NO_JIT_CLOCK,
              Integer.MAX_VALUE,
              resumed::add);
    }

    int scheduled() {
      synchronized (looks) {
        return looks.size();
      }
    }

    /** A permit waited for on a thread of its own. */
    CompletableFuture<RunGate.Permit> enterElsewhere() {
      return CompletableFuture.supplyAsync(() -> gate.enter(Long.MAX_VALUE));
    }
  }

  @Test
  void callsWaitingBehindHoldersOffTheCpuOpenTheGate() throws Exception {
    Valve v = new Valve(2, 16);
    RunGate gate = v.gate;
    feed(gate, RunGate.WINDOW, 100 * US, 100 * US); // cold calls bound it
    assertThat(gate.limit()).isEqualTo(2);
    RunGate.Permit a = gate.enter(0); // this thread holds both permits
    RunGate.Permit b = gate.enter(0);
    assertThat(v.scheduled()).as("no call held back, no look").isZero();
    long t0 = System.nanoTime();
    CompletableFuture<RunGate.Permit> waiter = v.enterElsewhere();
    await().atMost(Duration.ofSeconds(10)).until(gate::hasWaiters);
    assertThat(v.scheduled()).as("the call held back starts the looks").isEqualTo(1);
    // the first look sees the holders; the next judges them over the interval between
    assertThat(gate.lookedAt(t0 + 20 * MS)).isTrue();
    assertThat(waiter).isNotDone();
    v.cpu.put(Thread.currentThread(), MS); // on the CPU 1 ms of 20: they block
    assertThat(gate.lookedAt(t0 + 40 * MS)).as("opened: no more looks").isFalse();
    RunGate.Permit c = waiter.get(10, TimeUnit.SECONDS);
    assertThat(c).isNotNull();
    assertThat(gate.bounded()).isFalse();
    gate.leave(a);
    gate.leave(b);
    gate.leave(c);
    // the measures that bounded it are forgotten: a whole window again before a bound
    feed(gate, RunGate.WINDOW - 1, 100 * US, 100 * US);
    assertThat(gate.bounded()).isFalse();
    feed(gate, 1, 100 * US, 100 * US);
    assertThat(gate.limit()).isEqualTo(2);
  }

  @Test
  void queuedWorkerCallsBehindHoldersOffTheCpuGoToThePoolWhenTheGateOpens() {
    Valve v = new Valve(1, 16);
    RunGate gate = v.gate;
    feed(gate, RunGate.WINDOW, 100 * US, 100 * US);
    RunGate.Permit a = gate.enterOrQueue(() -> {}); // this thread holds the one permit
    Runnable b = () -> {};
    Runnable c = () -> {};
    assertThat(gate.enterOrQueue(b)).isNull();
    assertThat(gate.queueIfFull(c)).isTrue();
    assertThat(v.scheduled()).as("a call queued starts the looks").isEqualTo(1);
    long t0 = System.nanoTime();
    assertThat(gate.lookedAt(t0 + 20 * MS)).isTrue();
    assertThat(v.resumed).isEmpty();
    v.cpu.put(Thread.currentThread(), MS); // the holder blocks
    assertThat(gate.lookedAt(t0 + 40 * MS)).as("opened").isFalse();
    assertThat(v.resumed).as("every queued call, in order, to the pool").containsExactly(b, c);
    assertThat(gate.hasWaiters()).isFalse();
    gate.leave(a);
  }

  @Test
  void aLimitThatGrowsHandsAsManyQueuedWorkerCallsToThePool() {
    Valve v = new Valve(2, 16);
    RunGate gate = v.gate;
    feed(gate, RunGate.WINDOW, 100 * US, 100 * US);
    assertThat(gate.limit()).isEqualTo(2);
    RunGate.Permit a = gate.enterOrQueue(() -> {});
    RunGate.Permit b = gate.enterOrQueue(() -> {});
    List<Runnable> waiting = List.of(() -> {}, () -> {}, () -> {}, () -> {}, () -> {});
    for (Runnable w : waiting) {
      assertThat(gate.queueIfFull(w)).isTrue();
    }
    feed(gate, RunGate.WINDOW, 100 * US, 200 * US); // on the CPU half their time: 4 permits
    assertThat(gate.limit()).isEqualTo(4);
    assertThat(v.resumed)
        .as("the two permits added")
        .containsExactlyElementsOf(waiting.subList(0, 2));
    assertThat(gate.waiters()).isEqualTo(3);
    // the server's pool is shut down: the calls still queued never run
    assertThat(gate.takeQueued()).containsExactlyElementsOf(waiting.subList(2, 5));
    assertThat(gate.hasWaiters()).isFalse();
    gate.leave(a);
    gate.leave(b);
  }

  @Test
  void callsWaitingBehindHoldersOnTheCpuKeepTheBound() throws Exception {
    Valve v = new Valve(2, 16);
    RunGate gate = v.gate;
    feed(gate, RunGate.WINDOW, 100 * US, 100 * US);
    RunGate.Permit a = gate.enter(0);
    RunGate.Permit b = gate.enter(0);
    long t0 = System.nanoTime();
    CompletableFuture<RunGate.Permit> waiter = v.enterElsewhere();
    await().atMost(Duration.ofSeconds(10)).until(gate::hasWaiters);
    for (int i = 1; i <= 5; i++) {
      // one thread holds both permits, on the CPU half of each interval
      v.cpu.put(Thread.currentThread(), i * 10 * MS);
      assertThat(gate.lookedAt(t0 + i * 20 * MS)).isTrue();
    }
    assertThat(gate.limit()).isEqualTo(2);
    assertThat(waiter).isNotDone();
    gate.leave(a);
    RunGate.Permit c = waiter.get(10, TimeUnit.SECONDS);
    gate.leave(b);
    gate.leave(c);
    // nothing held back since the last look: the looks stop, the next call held back starts them
    assertThat(gate.lookedAt(t0 + 6 * 20 * MS)).isFalse();
    int looks = v.scheduled();
    a = gate.enter(0);
    b = gate.enter(0);
    assertThat(gate.enter(0)).isNull();
    assertThat(v.scheduled()).isEqualTo(looks + 1);
    gate.leave(a);
    gate.leave(b);
  }

  @Test
  void holdersWaitingForACpuTakenByOthersKeepTheBound() throws Exception {
    Valve v = new Valve(1, 8);
    RunGate gate = v.gate;
    feed(gate, RunGate.WINDOW, 100 * US, 100 * US);
    RunGate.Permit a = gate.enter(0);
    long t0 = System.nanoTime();
    CompletableFuture<RunGate.Permit> waiter = v.enterElsewhere();
    await().atMost(Duration.ofSeconds(10)).until(gate::hasWaiters);
    v.asleep = false; // runnable: computing, preempted for most of the interval
    assertThat(gate.lookedAt(t0 + 20 * MS)).isTrue();
    assertThat(gate.lookedAt(t0 + 40 * MS)).isTrue();
    assertThat(gate.limit()).isEqualTo(1);
    v.asleep = true; // the same CPU time, asleep: blocked
    assertThat(gate.lookedAt(t0 + 60 * MS)).isFalse();
    assertThat(gate.bounded()).isFalse();
    gate.leave(a);
    gate.leave(waiter.get(10, TimeUnit.SECONDS));
  }

  @Test
  void aThreadAsleepIsSeenAsleepAndARunningOneIsNot() throws Exception {
    assumeTrue(SchedStat.available(), "no per-thread scheduler statistics here");
    RunGate.HolderProbe probe = SchedStat.HOLDERS;
    assertThat(probe.asleep(probe.currentTid())).as("this thread, running").isFalse();
    CompletableFuture<Integer> tid = new CompletableFuture<>();
    CountDownLatch release = new CountDownLatch(1);
    Thread sleeper =
        new Thread(
            () -> {
              tid.complete(probe.currentTid());
              try {
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    sleeper.start();
    int t = tid.get(10, TimeUnit.SECONDS);
    assertThat(t).isPositive();
    await().atMost(Duration.ofSeconds(10)).until(() -> probe.asleep(t));
    assertThat(probe.cpuNanos(sleeper)).isPositive();
    release.countDown();
    sleeper.join(10_000);
    assertThat(SchedStat.asleepIn("12 (a (b) c) S 1 2 3")).isTrue();
    assertThat(SchedStat.asleepIn("12 (java) R 1 2 3")).isFalse();
    assertThat(SchedStat.asleepIn("12 (java) D 1")).isTrue();
    assertThat(SchedStat.asleepIn("garbage")).isFalse();
  }

  @Test
  void aLookThatComesLateJudgesNothing() throws Exception {
    Valve v = new Valve(1, 8);
    RunGate gate = v.gate;
    feed(gate, RunGate.WINDOW, 100 * US, 100 * US);
    RunGate.Permit a = gate.enter(0); // computes, but a pause of the whole JVM stops it
    long t0 = System.nanoTime();
    CompletableFuture<RunGate.Permit> waiter = v.enterElsewhere();
    await().atMost(Duration.ofSeconds(10)).until(gate::hasWaiters);
    assertThat(gate.lookedAt(t0 + 20 * MS)).isTrue();
    // the pause: 80 ms in which neither the holder nor the look ran
    assertThat(gate.lookedAt(t0 + 100 * MS)).as("late: nothing judged").isTrue();
    v.cpu.put(Thread.currentThread(), 15 * MS); // computing again after it
    assertThat(gate.lookedAt(t0 + 120 * MS)).isTrue();
    assertThat(gate.limit()).isEqualTo(1);
    gate.leave(a);
    gate.leave(waiter.get(10, TimeUnit.SECONDS));
  }

  @Test
  void readBatchesThatGaveUpWaitingBehindABlockedHolderOpenTheGate() {
    Valve v = new Valve(1, 8);
    RunGate gate = v.gate;
    feed(gate, RunGate.WINDOW, 100 * US, 100 * US);
    RunGate.Permit a = gate.enter(0); // a holder that blocks: no CPU from here
    long t0 = System.nanoTime();
    assertThat(gate.enter(MS)).isNull(); // a batch waited 1 ms for its turn, refused
    assertThat(gate.lookedAt(t0 + 20 * MS)).isTrue();
    assertThat(gate.lookedAt(t0 + 40 * MS))
        .as("no batch gave up since the last look: nothing to open for")
        .isFalse();
    long t1 = System.nanoTime();
    assertThat(gate.enter(MS)).isNull();
    assertThat(gate.lookedAt(t1 + 20 * MS)).isTrue();
    assertThat(gate.enter(MS)).isNull();
    assertThat(gate.lookedAt(t1 + 40 * MS)).isFalse();
    assertThat(gate.bounded()).isFalse();
    gate.leave(a);
  }

  @Test
  void schedStatReadsTheFirstTwoNumbers() {
    long[] into = new long[2];
    assertThat(SchedStat.parse("304989 23910 3\n", into)).isTrue();
    assertThat(into).containsExactly(304989, 23910);
    assertThat(SchedStat.parse("304989\n", into)).isFalse();
    assertThat(SchedStat.parse("a b c", into)).isFalse();
    assertThat(SchedStat.parse("", into)).isFalse();
  }
}
