package io.thriftnio.core.internal.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
    assertThat(gate.enter(0)).isTrue();
    assertThat(gate.enter(0)).as("the one permit is taken").isFalse();
    gate.leave();
    assertThat(gate.enter(0)).isTrue();
    gate.leave();
  }

  @Test
  void aCallWaitingForAPermitGetsTheOneGivenBack() throws Exception {
    RunGate gate = gate(1, 8);
    feed(gate, RunGate.WINDOW, 100 * US, 100 * US);
    assertThat(gate.enter(0)).isTrue();
    CompletableFuture<Boolean> waiter =
        CompletableFuture.supplyAsync(() -> gate.enter(Long.MAX_VALUE));
    await().atMost(Duration.ofSeconds(10)).until(gate::hasWaiters);
    assertThat(waiter).isNotDone();
    gate.leave();
    assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(gate.hasWaiters()).isFalse();
    gate.leave();
  }

  @Test
  void aCallWaitsNoLongerThanItMay() {
    RunGate gate = gate(1, 8);
    feed(gate, RunGate.WINDOW, 100 * US, 100 * US);
    assertThat(gate.enter(0)).isTrue();
    assertThat(gate.enter(TimeUnit.MILLISECONDS.toNanos(20))).isFalse();
    assertThat(gate.hasWaiters()).isFalse();
    gate.leave();
  }

  @Test
  void permitsHeldAcrossAResizeAreStillCounted() {
    RunGate gate = gate(1, 8);
    feed(gate, RunGate.WINDOW, 100 * US, 100 * US);
    assertThat(gate.enter(0)).isTrue(); // held from here to the end
    feed(gate, RunGate.WINDOW, 20 * US, 5 * MS);
    assertThat(gate.bounded()).isFalse();
    feed(gate, RunGate.WINDOW, 100 * US, 100 * US);
    assertThat(gate.limit()).isEqualTo(1);
    assertThat(gate.enter(0)).as("the permit taken before is still out").isFalse();
    gate.leave();
    assertThat(gate.enter(0)).isTrue();
    gate.leave();
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
