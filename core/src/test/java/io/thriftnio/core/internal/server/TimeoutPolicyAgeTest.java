package io.thriftnio.core.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.CloseCause;
import io.thriftnio.core.internal.server.TimeoutPolicy.Kind;
import io.thriftnio.core.internal.server.TimeoutPolicy.Verdict;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The connection age: its jitter's bounds, when it closes a connection, and its deadlines. */
@Timeout(10)
class TimeoutPolicyAgeTest {

  private static final long MS = 1_000_000;
  private static final long NONE = TimeoutPolicy.NONE;
  private static final long T0 = 1_000_000 * MS;
  private static final long AGE = 1_000 * MS;

  private static TimeoutPolicy aged(Duration grace) {
    return new TimeoutPolicy(
        Duration.ZERO, Duration.ofSeconds(30), null, 65536, Duration.ofNanos(AGE), grace);
  }

  @Test
  void theJitterStaysWithinTenPercentEitherWay() {
    assertThat(TimeoutPolicy.jittered(AGE, 0.0)).isEqualTo(AGE * 9 / 10);
    assertThat(TimeoutPolicy.jittered(AGE, 0.5)).isEqualTo(AGE);
    assertThat(TimeoutPolicy.jittered(AGE, Math.nextDown(1.0)))
        .isLessThanOrEqualTo(AGE * 11 / 10)
        .isGreaterThan(AGE * 11 / 10 - MS);
    assertThat(TimeoutPolicy.jittered(1, 0.0)).as("never below 1 ns").isEqualTo(1);
  }

  @Test
  void eachConnectionDrawsItsOwnAgeWithinTheBounds() {
    TimeoutPolicy policy = aged(null);
    long lowest = Long.MAX_VALUE;
    long highest = Long.MIN_VALUE;
    for (int i = 0; i < 10_000; i++) {
      long age = policy.ageDeadline(T0) - T0;
      lowest = Math.min(lowest, age);
      highest = Math.max(highest, age);
    }
    assertThat(lowest).isGreaterThanOrEqualTo(AGE * 9 / 10);
    assertThat(highest).isLessThanOrEqualTo(AGE * 11 / 10);
    // Spread over the range, not one value: 10,000 draws leave no 2% gap at either end.
    assertThat(lowest).isLessThan(AGE * 92 / 100);
    assertThat(highest).isGreaterThan(AGE * 108 / 100);
  }

  @Test
  void withoutAnAgeNoConnectionAges() {
    TimeoutPolicy policy = new TimeoutPolicy(Duration.ZERO, Duration.ofSeconds(30), null, 65536);
    assertThat(policy.agesConnections()).isFalse();
    assertThat(policy.ageDeadline(T0)).isEqualTo(NONE);
    assertThat(policy.check(T0 + 1_000_000 * MS, T0, NONE, NONE, 0, NONE, NONE)).isNull();
    assertThat(TimeoutPolicy.isAged(T0, NONE)).isFalse();
  }

  @Test
  void anIdleConnectionClosesAtItsAgeNotBefore() {
    TimeoutPolicy policy = aged(null);
    long agedAt = T0 + AGE;
    assertThat(policy.check(agedAt - 1, T0, NONE, NONE, 0, NONE, agedAt)).isNull();
    Verdict v = policy.check(agedAt + 5 * MS, T0, NONE, NONE, 0, NONE, agedAt);
    assertThat(v.kind()).isEqualTo(Kind.AGED);
    assertThat(v.kind().closeCause()).isEqualTo(CloseCause.AGED);
    assertThat(v.reason())
        .isEqualTo(
            "quiet for 1005 ms, 5 ms past its age (maxConnectionAge 1000 ms, varied by up to 10%"
                + " per connection)");
  }

  @Test
  void anAgedConnectionBetweenCallsClosesOnlyOnceQuietForASecond() {
    TimeoutPolicy policy = aged(null);
    long agedAt = T0 + AGE;
    long answered = agedAt + 10_000 * MS; // a client calling back to back, long past its age
    assertThat(policy.check(answered + 999 * MS, answered, NONE, NONE, 0, NONE, agedAt))
        .as("idle between two calls, not quiet")
        .isNull();
    assertThat(policy.nextDeadline(answered, answered, NONE, NONE, 0, NONE, agedAt))
        .isEqualTo(answered + 1_000 * MS);
    Verdict v = policy.check(answered + 1_000 * MS, answered, NONE, NONE, 0, NONE, agedAt);
    assertThat(v.kind()).isEqualTo(Kind.AGED);
    assertThat(v.reason()).startsWith("quiet for 1000 ms, 11000 ms past its age");
  }

  @Test
  void theQuietPeriodIsTheIdleTimeoutWhenThatIsShorterAndTheCloseIsForTheAge() {
    TimeoutPolicy policy =
        new TimeoutPolicy(
            Duration.ofMillis(300),
            Duration.ofSeconds(30),
            null,
            65536,
            Duration.ofNanos(AGE),
            null);
    long agedAt = T0 + AGE;
    long answered = agedAt + 50 * MS;
    assertThat(policy.check(answered + 299 * MS, answered, NONE, NONE, 0, NONE, agedAt)).isNull();
    assertThat(policy.nextDeadline(answered, answered, NONE, NONE, 0, NONE, agedAt))
        .isEqualTo(answered + 300 * MS);
    assertThat(policy.check(answered + 300 * MS, answered, NONE, NONE, 0, NONE, agedAt).kind())
        .as("aged, not idle-timed-out")
        .isEqualTo(Kind.AGED);
    assertThat(policy.check(answered + 300 * MS, answered, NONE, NONE, 0, NONE, NONE).kind())
        .as("the same connection never aged")
        .isEqualTo(Kind.IDLE);
  }

  @Test
  void theGraceClosesAConnectionBetweenCallsThatIsNeverQuiet() {
    TimeoutPolicy policy = aged(Duration.ofMillis(200));
    long agedAt = T0 + AGE;
    long answered = agedAt + 150 * MS;
    assertThat(policy.nextDeadline(answered, answered, NONE, NONE, 0, NONE, agedAt))
        .as("the grace's end comes before the quiet period's")
        .isEqualTo(agedAt + 200 * MS);
    Verdict v = policy.check(agedAt + 200 * MS, answered, NONE, NONE, 0, NONE, agedAt);
    assertThat(v.kind()).isEqualTo(Kind.AGE_GRACE);
  }

  @Test
  void aBusyConnectionIsNeverCutWithoutAGrace() {
    TimeoutPolicy policy = aged(null);
    long agedAt = T0 + AGE;
    long late = agedAt + 1_000_000 * MS;
    assertThat(policy.check(late, T0, NONE, NONE, 1, NONE, agedAt)).as("a call").isNull();
    assertThat(policy.check(late, T0, late - MS, NONE, 0, NONE, agedAt))
        .as("a request partly read")
        .isNull();
    assertThat(policy.nextDeadline(late, T0, NONE, NONE, 1, NONE, agedAt))
        .as("rechecked when its calls are answered, not by a timer")
        .isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aBusyConnectionClosesAtItsAgePlusTheGrace() {
    TimeoutPolicy policy = aged(Duration.ofMillis(200));
    long agedAt = T0 + AGE;
    assertThat(policy.check(agedAt + 200 * MS - 1, T0, NONE, NONE, 2, NONE, agedAt)).isNull();
    Verdict v = policy.check(agedAt + 200 * MS, T0, NONE, NONE, 2, NONE, agedAt);
    assertThat(v.kind()).isEqualTo(Kind.AGE_GRACE);
    assertThat(v.kind().closeCause()).isEqualTo(CloseCause.AGED);
    assertThat(v.reason())
        .isEqualTo(
            "not quiet (2 calls in flight) 200 ms past its age (maxConnectionAge 1000 ms,"
                + " maxConnectionAgeGrace 200 ms): closed with its calls in flight");
    assertThat(policy.nextDeadline(agedAt + MS, T0, NONE, NONE, 2, NONE, agedAt))
        .isEqualTo(agedAt + 200 * MS);
  }

  @Test
  void theTimerFiresAtTheAgeWhetherBusyOrNot() {
    TimeoutPolicy policy = aged(null);
    long agedAt = T0 + AGE;
    assertThat(policy.nextDeadline(T0, T0, NONE, NONE, 0, NONE, agedAt)).isEqualTo(agedAt);
    assertThat(policy.nextDeadline(T0, T0, NONE, NONE, 3, NONE, agedAt)).isEqualTo(agedAt);
    assertThat(policy.isEnabled()).isTrue();
    assertThat(policy.agesConnections()).isTrue();
    assertThat(policy.shortestNanos()).isEqualTo(AGE);
  }
}
