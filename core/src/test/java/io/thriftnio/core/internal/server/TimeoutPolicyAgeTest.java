package io.thriftnio.core.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.CloseCause;
import io.thriftnio.core.internal.server.TimeoutPolicy.Clocks;
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
    assertThat(policy.decide(T0 + 1_000_000 * MS, Clocks.lastActive(T0)).verdict()).isNull();
    assertThat(TimeoutPolicy.isAged(T0, NONE)).isFalse();
  }

  @Test
  void anIdleConnectionClosesAtItsAgeNotBefore() {
    TimeoutPolicy policy = aged(null);
    long agedAt = T0 + AGE;
    assertThat(policy.decide(agedAt - 1, Clocks.lastActive(T0).withAgedAt(agedAt)).verdict())
        .isNull();
    Verdict v = policy.decide(agedAt + 5 * MS, Clocks.lastActive(T0).withAgedAt(agedAt)).verdict();
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
    assertThat(
            policy
                .decide(answered + 999 * MS, Clocks.lastActive(answered).withAgedAt(agedAt))
                .verdict())
        .as("idle between two calls, not quiet")
        .isNull();
    assertThat(policy.decide(answered, Clocks.lastActive(answered).withAgedAt(agedAt)).next())
        .isEqualTo(answered + 1_000 * MS);
    Verdict v =
        policy
            .decide(answered + 1_000 * MS, Clocks.lastActive(answered).withAgedAt(agedAt))
            .verdict();
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
    assertThat(
            policy
                .decide(answered + 299 * MS, Clocks.lastActive(answered).withAgedAt(agedAt))
                .verdict())
        .isNull();
    assertThat(policy.decide(answered, Clocks.lastActive(answered).withAgedAt(agedAt)).next())
        .isEqualTo(answered + 300 * MS);
    assertThat(
            policy
                .decide(answered + 300 * MS, Clocks.lastActive(answered).withAgedAt(agedAt))
                .verdict()
                .kind())
        .as("aged, not idle-timed-out")
        .isEqualTo(Kind.AGED);
    assertThat(policy.decide(answered + 300 * MS, Clocks.lastActive(answered)).verdict().kind())
        .as("the same connection never aged")
        .isEqualTo(Kind.IDLE);
  }

  @Test
  void theGraceClosesAConnectionBetweenCallsThatIsNeverQuiet() {
    TimeoutPolicy policy = aged(Duration.ofMillis(200));
    long agedAt = T0 + AGE;
    long answered = agedAt + 150 * MS;
    assertThat(policy.decide(answered, Clocks.lastActive(answered).withAgedAt(agedAt)).next())
        .as("the grace's end comes before the quiet period's")
        .isEqualTo(agedAt + 200 * MS);
    Verdict v =
        policy.decide(agedAt + 200 * MS, Clocks.lastActive(answered).withAgedAt(agedAt)).verdict();
    assertThat(v.kind()).isEqualTo(Kind.AGE_GRACE);
  }

  @Test
  void aBusyConnectionIsNeverCutWithoutAGrace() {
    TimeoutPolicy policy = aged(null);
    long agedAt = T0 + AGE;
    long late = agedAt + 1_000_000 * MS;
    assertThat(
            policy
                .decide(late, Clocks.lastActive(T0).withPendingCalls(1).withAgedAt(agedAt))
                .verdict())
        .as("a call")
        .isNull();
    assertThat(
            policy
                .decide(late, Clocks.lastActive(T0).withPartialSince(late - MS).withAgedAt(agedAt))
                .verdict())
        .as("a request partly read")
        .isNull();
    assertThat(
            policy
                .decide(late, Clocks.lastActive(T0).withPendingCalls(1).withAgedAt(agedAt))
                .next())
        .as("rechecked when its calls are answered, not by a timer")
        .isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aBusyConnectionClosesAtItsAgePlusTheGrace() {
    TimeoutPolicy policy = aged(Duration.ofMillis(200));
    long agedAt = T0 + AGE;
    assertThat(
            policy
                .decide(
                    agedAt + 200 * MS - 1,
                    Clocks.lastActive(T0).withPendingCalls(2).withAgedAt(agedAt))
                .verdict())
        .isNull();
    Verdict v =
        policy
            .decide(agedAt + 200 * MS, Clocks.lastActive(T0).withPendingCalls(2).withAgedAt(agedAt))
            .verdict();
    assertThat(v.kind()).isEqualTo(Kind.AGE_GRACE);
    assertThat(v.kind().closeCause()).isEqualTo(CloseCause.AGED);
    assertThat(v.reason())
        .isEqualTo(
            "not quiet (2 calls in flight) 200 ms past its age (maxConnectionAge 1000 ms,"
                + " maxConnectionAgeGrace 200 ms): closed with its calls in flight");
    assertThat(
            policy
                .decide(agedAt + MS, Clocks.lastActive(T0).withPendingCalls(2).withAgedAt(agedAt))
                .next())
        .isEqualTo(agedAt + 200 * MS);
  }

  @Test
  void theTimerFiresAtTheAgeWhetherBusyOrNot() {
    TimeoutPolicy policy = aged(null);
    long agedAt = T0 + AGE;
    assertThat(policy.decide(T0, Clocks.lastActive(T0).withAgedAt(agedAt)).next())
        .isEqualTo(agedAt);
    assertThat(
            policy.decide(T0, Clocks.lastActive(T0).withPendingCalls(3).withAgedAt(agedAt)).next())
        .isEqualTo(agedAt);
    assertThat(policy.isEnabled()).isTrue();
    assertThat(policy.agesConnections()).isTrue();
    assertThat(policy.shortestNanos()).isEqualTo(AGE);
  }

  @Test
  void theDecisionSaysWhenTheConnectionIsPastItsAgeOnceItsHandshakeIsDone() {
    TimeoutPolicy policy = aged(null);
    long agedAt = T0 + AGE;
    Clocks busy = Clocks.lastActive(T0).withPendingCalls(1).withAgedAt(agedAt);
    assertThat(policy.decide(agedAt - 1, busy).aged()).isFalse();
    assertThat(policy.decide(agedAt, busy).aged()).isTrue();
    assertThat(policy.decide(agedAt, busy.withHandshakingSince(T0)).aged())
        .as("still handshaking: no rule but the handshake's runs")
        .isFalse();
  }
}
