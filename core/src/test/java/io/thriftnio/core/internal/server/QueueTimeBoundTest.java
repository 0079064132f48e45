package io.thriftnio.core.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server's default shedding rule, on a clock the test moves: a burst is served, a queue that
 * stands for an interval is overload (calls that waited past the target are shed, calls under it
 * run), and the bound turns off once no call has waited past the target for an interval.
 */
@Timeout(10)
class QueueTimeBoundTest {

  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
  private final QueueTimeBound bound = new QueueTimeBound(5 * MS, 100 * MS);

  @Test
  void aBurstShorterThanTheIntervalIsServed() {
    for (long t = 0; t < 99 * MS; t += MS) {
      assertThat(bound.shed(40 * MS, t)).as("long wait at %d ms", t / MS).isFalse();
    }
    assertThat(bound.shed(MS, 99 * MS)).isFalse(); // the queue drained: the clock stops
    assertThat(bound.shed(40 * MS, 150 * MS)).isFalse();
    assertThat(bound.overloaded()).isFalse();
  }

  @Test
  void aQueueBehindMostlyIdleWorkersIsNoStandingQueue() {
    // A Boot test under a loaded machine shed calls with 1 of 64 workers busy and 6 queued: the
    // workers had not been given a CPU, the pool was not saturated.
    assertThat(QueueTimeBound.standingQueue(false, 1, 64)).as("1 of 64 busy").isFalse();
    assertThat(QueueTimeBound.standingQueue(false, 32, 64)).as("half busy").isFalse();
    assertThat(QueueTimeBound.standingQueue(false, 33, 64)).as("most busy").isTrue();
    assertThat(QueueTimeBound.standingQueue(false, 63, 64)).as("one between calls").isTrue();
    assertThat(QueueTimeBound.standingQueue(true, 64, 64)).as("nothing queued").isFalse();
    assertThat(QueueTimeBound.standingQueue(false, 1, 1)).as("a pool of one").isTrue();
  }

  @Test
  void aQueueStandingForAnIntervalShedsTheCallsPastTheTarget() {
    for (long t = 0; t < 100 * MS; t += MS) {
      assertThat(bound.shed(20 * MS, t)).isFalse();
    }
    assertThat(bound.shed(20 * MS, 100 * MS)).as("standing for the whole interval").isTrue();
    assertThat(bound.overloaded()).isTrue();
    assertThat(bound.shed(4 * MS, 101 * MS)).as("under the target: runs").isFalse();
    assertThat(bound.shed(5 * MS, 102 * MS)).as("at the target: shed").isTrue();
    assertThat(bound.describe(140 * MS))
        .isEqualTo("over the queue-time target 5 ms, overloaded for 40 ms");
  }

  @Test
  void whileTheQueueStandsPastTheTargetArrivalsAreRefusedUntilACallStartsUnderIt() {
    assertThat(bound.refusesArrivals(0)).as("not overloaded").isFalse();
    for (long t = 0; t <= 100 * MS; t += MS) {
      bound.shed(20 * MS, t);
    }
    assertThat(bound.overloaded()).isTrue();
    assertThat(bound.refusesArrivals(101 * MS))
        .as("the last start waited past the target")
        .isTrue();
    assertThat(bound.refusesArrivals(200 * MS)).as("no call started for an interval").isFalse();
    assertThat(bound.shed(4 * MS, 102 * MS)).as("under the target: runs").isFalse();
    assertThat(bound.refusesArrivals(103 * MS)).as("the queue is under the target").isFalse();
    assertThat(bound.shed(6 * MS, 104 * MS)).isTrue();
    assertThat(bound.refusesArrivals(105 * MS)).isTrue();
    assertThat(bound.shed(30 * MS, 106 * MS, false)).as("none behind it").isFalse();
    assertThat(bound.refusesArrivals(107 * MS)).as("the queue was seen empty").isFalse();
  }

  /** Long waits, one call starting every 10 ms, from {@code from} to {@code to} inclusive. */
  private void standing(long from, long to) {
    for (long t = from; t <= to; t += 10 * MS) {
      bound.shed(20 * MS, t);
    }
  }

  @Test
  void theBoundTurnsOffAfterAnIntervalWithoutALongWait() {
    standing(0, 100 * MS);
    assertThat(bound.overloaded()).isTrue();
    assertThat(bound.shed(MS, 150 * MS)).isFalse();
    assertThat(bound.overloaded()).as("a long wait 50 ms ago").isTrue();
    assertThat(bound.shed(MS, 200 * MS)).isFalse();
    assertThat(bound.overloaded()).isFalse();
    assertThat(bound.shed(20 * MS, 201 * MS)).as("a new standing queue must last again").isFalse();
  }

  @Test
  void aLongWaitWithNoneBehindOrAfterAQuietIntervalIsNoStandingQueue() {
    bound.shed(300 * MS, 0); // a thread late to run, one call alone
    assertThat(bound.shed(300 * MS, 2_000 * MS)).as("nothing started for seconds").isFalse();
    standing(2_010 * MS, 2_090 * MS);
    assertThat(bound.shed(20 * MS, 2_100 * MS, false)).as("none behind it").isFalse();
    standing(2_110 * MS, 2_190 * MS);
    assertThat(bound.overloaded()).isFalse();
    assertThat(bound.shed(20 * MS, 2_200 * MS)).as("standing since 2,110 ms only").isFalse();
    assertThat(bound.shed(20 * MS, 2_210 * MS)).isTrue();
  }

  @Test
  void aQueueSeenEmptyEndsAStandingQueueAndTheOverloadOnceQuiet() {
    bound.shed(20 * MS, 0);
    bound.emptied(50 * MS);
    assertThat(bound.shed(20 * MS, 100 * MS)).as("the clock restarted at 100 ms").isFalse();
    standing(110 * MS, 190 * MS);
    assertThat(bound.shed(20 * MS, 200 * MS)).isTrue();
    bound.emptied(250 * MS);
    assertThat(bound.overloaded()).as("a long wait 50 ms ago").isTrue();
    bound.emptied(300 * MS);
    assertThat(bound.overloaded()).isFalse();
  }
}
