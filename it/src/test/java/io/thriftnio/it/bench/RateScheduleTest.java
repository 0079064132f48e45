package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * The open loop's arithmetic without a clock: when calls are due, how many are due by a time, that
 * latency counts from the due time (coordinated omission corrected), and the sustained rule.
 */
class RateScheduleTest {

  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  @Test
  void callsAreDueEvenlyFromTheStartWhateverHappenedBefore() {
    RateSchedule s = new RateSchedule(1_000, 1000);
    assertThat(s.dueNanos(0)).isEqualTo(1_000);
    assertThat(s.dueNanos(1)).isEqualTo(1_000 + MS);
    assertThat(s.dueNanos(1000)).isEqualTo(1_000 + 1000 * MS);
    assertThat(new RateSchedule(0, 3).dueNanos(1)).isEqualTo(333_333_333);
  }

  @Test
  void dueByCountsTheCallsDueAtOrBeforeATime() {
    RateSchedule s = new RateSchedule(1_000, 1000);
    assertThat(s.dueBy(999)).isZero();
    assertThat(s.dueBy(1_000)).isEqualTo(1);
    assertThat(s.dueBy(1_000 + MS - 1)).isEqualTo(1);
    assertThat(s.dueBy(1_000 + MS)).isEqualTo(2);
    assertThat(s.dueBy(1_000 + 1000 * MS)).isEqualTo(1001);
    RateSchedule odd = new RateSchedule(0, 7);
    for (long i = 0; i < 50; i++) {
      assertThat(odd.dueBy(odd.dueNanos(i))).as("call %d", i).isEqualTo(i + 1);
      assertThat(odd.dueBy(odd.dueNanos(i) - 1)).as("before call %d", i).isEqualTo(i);
    }
  }

  @Test
  void aRateMustBePositive() {
    assertThatThrownBy(() -> new RateSchedule(0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("rate: 0.0 (expected: > 0 calls/s)");
    assertThatThrownBy(() -> new RateSchedule(0, Double.NaN))
        .hasMessage("rate: NaN (expected: > 0 calls/s)");
  }

  @Test
  void latencyCountsFromTheDueTimeNotFromTheSend() {
    // Due at 1 ms, sent late at 5 ms, answered at 6 ms: 5 ms, not the 1 ms the wire took.
    assertThat(RateSchedule.latencyMicros(MS, 6 * MS)).isEqualTo(5_000);
    assertThat(RateSchedule.latencyMicros(6 * MS, 5 * MS)).isZero();
    assertThat(new RateSchedule(0, 40_000).queueNanos(400)).isEqualTo(10 * MS);
  }

  /**
   * A server that answers in 100 us stalls for 100 ms at 1,000 calls/s. The open loop records the
   * 100 calls due during the stall with their waits; a closed loop sends nothing while it waits and
   * records one slow call: coordinated omission, which the schedule corrects.
   */
  @Test
  void aStallDelaysEveryCallDueDuringItNotJustOne() {
    long service = 100_000;
    long stallFrom = 1_000 * MS;
    long stallTo = 1_100 * MS;
    RateSchedule s = new RateSchedule(0, 1000);
    Histogram open = new Histogram(3);
    long free = 0;
    for (long i = 0; i < 2000; i++) {
      long begin = Math.max(s.dueNanos(i), free);
      if (begin >= stallFrom && begin < stallTo) {
        begin = stallTo;
      }
      free = begin + service;
      open.recordValue(RateSchedule.latencyMicros(s.dueNanos(i), free));
    }
    Histogram closed = new Histogram(3);
    long now = 0;
    while (now < 2000 * MS) {
      long begin = now >= stallFrom && now < stallTo ? stallTo : now;
      long end = begin + service;
      closed.recordValue((end - now) / 1000);
      now = Math.max(end, s.dueNanos(s.dueBy(end)));
    }

    long slowOpen = open.getCountBetweenValues(1_000, Long.MAX_VALUE);
    long slowClosed = closed.getCountBetweenValues(1_000, Long.MAX_VALUE);
    // The 100 calls due during the stall, and the few after it while the backlog drains.
    assertThat(slowOpen).isBetween(100L, 125L);
    assertThat(slowClosed).isEqualTo(1);
    assertThat(open.getValueAtPercentile(99)).isGreaterThanOrEqualTo(50_000);
    assertThat(closed.getValueAtPercentile(99)).isLessThan(1_000);
  }

  @Test
  void aRunIsSustainedAtNinetyEightPercentWithAFlatBacklog() {
    assertThat(run(1000, 980, 5, 5).sustained()).isTrue();
    assertThat(run(1000, 979, 5, 5).sustained()).isFalse();
    // 20 ms of growth at 1,000/s is 20 calls: the limit itself is sustained, one more is not.
    assertThat(run(1000, 1000, 5, 25).sustained()).isTrue();
    assertThat(run(1000, 1000, 5, 26).sustained()).isFalse();
    assertThat(run(1000, 1000, 5, 26).queueGrowthMs()).isEqualTo(21.0);
  }

  @Test
  void theBacklogOfAFifthIsItsMedian() {
    long[] flatThenStall = {1, 2, 1, 3, 2, 2, 2, 2, 2, 900};
    assertThat(OpenLoop.fifthMedian(flatThenStall, true)).isEqualTo(1.5);
    assertThat(OpenLoop.fifthMedian(flatThenStall, false)).isEqualTo(451.0);
    long[] growing = {1, 1, 1, 1, 1, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140};
    assertThat(OpenLoop.fifthMedian(growing, true)).isEqualTo(1.0);
    assertThat(OpenLoop.fifthMedian(growing, false)).isEqualTo(130.0);
    assertThat(OpenLoop.fifthMedian(new long[] {7}, false)).isEqualTo(7.0);
    assertThat(OpenLoop.fifthMedian(new long[0], false)).isZero();
  }

  private static RateRun run(double target, long calls, double backlogStart, double backlogEnd) {
    return new RateRun(
        target, calls, calls, 1.0, 100, 200, 300, 400, 10, backlogStart, backlogEnd, 0, 0);
  }
}
