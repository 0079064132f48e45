package io.thriftnio.core.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.internal.server.TimeoutPolicy.Clocks;
import io.thriftnio.core.internal.server.TimeoutPolicy.Kind;
import io.thriftnio.core.internal.server.TimeoutPolicy.Verdict;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every timeout at its boundary, what keeps a connection open, and the messages. No sockets. */
@Timeout(10)
class TimeoutPolicyTest {

  private static final long MS = 1_000_000;
  private static final long NONE = TimeoutPolicy.NONE;

  /** A clock value far from 0, so that NONE is never a real moment here. */
  private static final long T0 = 1_000_000 * MS;

  private final TimeoutPolicy policy =
      new TimeoutPolicy(
          Duration.ofMillis(300), Duration.ofMillis(100), Duration.ofMillis(50), 65536);

  @Test
  void idleAtItsTimeoutNotBefore() {
    assertThat(policy.decide(T0 + 300 * MS - 1, Clocks.lastActive(T0)).verdict()).isNull();
    Verdict v = policy.decide(T0 + 300 * MS, Clocks.lastActive(T0)).verdict();
    assertThat(v.kind()).isEqualTo(Kind.IDLE);
    assertThat(v.reason()).isEqualTo("no request for 300 ms (idleTimeout 300 ms)");
  }

  @Test
  void aCallInFlightOrAStartedRequestIsNeverIdle() {
    long late = T0 + 10_000 * MS;
    assertThat(policy.decide(late, Clocks.lastActive(T0).withPendingCalls(1)).verdict()).isNull();
    Verdict partial =
        policy.decide(late, Clocks.lastActive(T0).withPartialSince(late - 10 * MS)).verdict();
    assertThat(partial).isNull(); // 10 ms into a request: neither idle nor slow
  }

  @Test
  void aPartialRequestAtTheFrameTimeout() {
    assertThat(
            policy.decide(T0 + 100 * MS - 1, Clocks.lastActive(T0).withPartialSince(T0)).verdict())
        .isNull();
    Verdict v = policy.decide(T0 + 100 * MS, Clocks.lastActive(T0).withPartialSince(T0)).verdict();
    assertThat(v.kind()).isEqualTo(Kind.PARTIAL_REQUEST);
    assertThat(v.reason())
        .isEqualTo(
            "a frame started 100 ms ago is not complete (frameTimeout 100 ms): slow or stalled"
                + " sender");
  }

  @Test
  void aStalledReaderAtTheFrameTimeoutEvenWithCallsInFlight() {
    assertThat(
            policy
                .decide(
                    T0 + 100 * MS - 1,
                    Clocks.lastActive(T0).withUnwritableSince(T0).withPendingCalls(3))
                .verdict())
        .isNull();
    Verdict v =
        policy
            .decide(
                T0 + 120 * MS, Clocks.lastActive(T0).withUnwritableSince(T0).withPendingCalls(3))
            .verdict();
    assertThat(v.kind()).isEqualTo(Kind.STALLED_READER);
    assertThat(v.reason())
        .isEqualTo(
            "its responses have waited unread for 120 ms (frameTimeout 100 ms, above"
                + " maxPendingWriteBytes 65536): stalled reader");
  }

  @Test
  void duringTheTlsHandshakeOnlyTheHandshakeTimeoutRuns() {
    assertThat(
            policy
                .decide(T0 + 50 * MS - 1, Clocks.lastActive(T0).withHandshakingSince(T0))
                .verdict())
        .isNull();
    Verdict v =
        policy
            .decide(T0 + 50 * MS, Clocks.lastActive(T0 - 10_000 * MS).withHandshakingSince(T0))
            .verdict();
    assertThat(v.kind()).isEqualTo(Kind.TLS_HANDSHAKE);
    assertThat(v.reason()).isEqualTo("handshake timed out after 50 ms");
    // Long idle, but handshaking: not the idle clock's business yet.
    assertThat(
            policy
                .decide(T0 + 40 * MS, Clocks.lastActive(T0 - 10_000 * MS).withHandshakingSince(T0))
                .verdict())
        .isNull();
  }

  @Test
  void zeroTurnsATimeoutOff() {
    TimeoutPolicy off = TimeoutPolicy.off();
    assertThat(off.isEnabled()).isFalse();
    assertThat(
            off.decide(
                    T0 + 10_000_000 * MS,
                    Clocks.lastActive(T0).withPartialSince(T0).withUnwritableSince(T0))
                .verdict())
        .isNull();
    assertThat(
            off.decide(T0, Clocks.lastActive(T0).withPartialSince(T0).withUnwritableSince(T0))
                .next())
        .isEqualTo(Long.MAX_VALUE);
    assertThat(off.shortestNanos()).isEqualTo(Long.MAX_VALUE);
    assertThat(policy.shortestNanos()).isEqualTo(50 * MS);
  }

  @Test
  void theNextDeadlineIsTheNearestClock() {
    assertThat(policy.decide(T0, Clocks.lastActive(T0)).next()).isEqualTo(T0 + 300 * MS);
    assertThat(policy.decide(T0, Clocks.lastActive(T0).withPartialSince(T0 + 5 * MS)).next())
        .isEqualTo(T0 + 105 * MS);
    assertThat(policy.decide(T0, Clocks.lastActive(T0).withUnwritableSince(T0 - 20 * MS)).next())
        .isEqualTo(T0 + 80 * MS);
    // With a call in flight the idle clock is looked at again a whole timeout from now.
    assertThat(policy.decide(T0 + 7 * MS, Clocks.lastActive(T0).withPendingCalls(1)).next())
        .isEqualTo(T0 + 307 * MS);
    assertThat(policy.decide(T0, Clocks.lastActive(T0).withHandshakingSince(T0 - MS)).next())
        .isEqualTo(T0 + 49 * MS);
  }

  @Test
  void clocksNearTheWrapOfNanoTimeStillCompare() {
    long start = Long.MAX_VALUE - 100 * MS;
    Verdict v =
        policy.decide(start + 300 * MS, Clocks.lastActive(start)).verdict(); // wrapped past MAX
    assertThat(v.kind()).isEqualTo(Kind.IDLE);
    assertThat(TimeoutPolicy.stamp(0)).isNotEqualTo(NONE);
  }
}
