package io.thriftnio.core.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

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
    assertThat(policy.check(T0 + 300 * MS - 1, T0, NONE, NONE, 0, NONE, NONE)).isNull();
    Verdict v = policy.check(T0 + 300 * MS, T0, NONE, NONE, 0, NONE, NONE);
    assertThat(v.kind()).isEqualTo(Kind.IDLE);
    assertThat(v.reason()).isEqualTo("no request for 300 ms (idleTimeout 300 ms)");
  }

  @Test
  void aCallInFlightOrAStartedRequestIsNeverIdle() {
    long late = T0 + 10_000 * MS;
    assertThat(policy.check(late, T0, NONE, NONE, 1, NONE, NONE)).isNull();
    Verdict partial = policy.check(late, T0, late - 10 * MS, NONE, 0, NONE, NONE);
    assertThat(partial).isNull(); // 10 ms into a request: neither idle nor slow
  }

  @Test
  void aPartialRequestAtTheFrameTimeout() {
    assertThat(policy.check(T0 + 100 * MS - 1, T0, T0, NONE, 0, NONE, NONE)).isNull();
    Verdict v = policy.check(T0 + 100 * MS, T0, T0, NONE, 0, NONE, NONE);
    assertThat(v.kind()).isEqualTo(Kind.PARTIAL_REQUEST);
    assertThat(v.reason())
        .isEqualTo(
            "a frame started 100 ms ago is not complete (frameTimeout 100 ms): slow or stalled"
                + " sender");
  }

  @Test
  void aStalledReaderAtTheFrameTimeoutEvenWithCallsInFlight() {
    assertThat(policy.check(T0 + 100 * MS - 1, T0, NONE, T0, 3, NONE, NONE)).isNull();
    Verdict v = policy.check(T0 + 120 * MS, T0, NONE, T0, 3, NONE, NONE);
    assertThat(v.kind()).isEqualTo(Kind.STALLED_READER);
    assertThat(v.reason())
        .isEqualTo(
            "its responses have waited unread for 120 ms (frameTimeout 100 ms, above"
                + " maxPendingWriteBytes 65536): stalled reader");
  }

  @Test
  void duringTheTlsHandshakeOnlyTheHandshakeTimeoutRuns() {
    assertThat(policy.check(T0 + 50 * MS - 1, T0, NONE, NONE, 0, T0, NONE)).isNull();
    Verdict v = policy.check(T0 + 50 * MS, T0 - 10_000 * MS, NONE, NONE, 0, T0, NONE);
    assertThat(v.kind()).isEqualTo(Kind.TLS_HANDSHAKE);
    assertThat(v.reason()).isEqualTo("handshake timed out after 50 ms");
    // Long idle, but handshaking: not the idle clock's business yet.
    assertThat(policy.check(T0 + 40 * MS, T0 - 10_000 * MS, NONE, NONE, 0, T0, NONE)).isNull();
  }

  @Test
  void zeroTurnsATimeoutOff() {
    TimeoutPolicy off = TimeoutPolicy.off();
    assertThat(off.isEnabled()).isFalse();
    assertThat(off.check(T0 + 10_000_000 * MS, T0, T0, T0, 0, NONE, NONE)).isNull();
    assertThat(off.nextDeadline(T0, T0, T0, T0, 0, NONE, NONE)).isEqualTo(Long.MAX_VALUE);
    assertThat(off.shortestNanos()).isEqualTo(Long.MAX_VALUE);
    assertThat(policy.shortestNanos()).isEqualTo(50 * MS);
  }

  @Test
  void theNextDeadlineIsTheNearestClock() {
    assertThat(policy.nextDeadline(T0, T0, NONE, NONE, 0, NONE, NONE)).isEqualTo(T0 + 300 * MS);
    assertThat(policy.nextDeadline(T0, T0, T0 + 5 * MS, NONE, 0, NONE, NONE))
        .isEqualTo(T0 + 105 * MS);
    assertThat(policy.nextDeadline(T0, T0, NONE, T0 - 20 * MS, 0, NONE, NONE))
        .isEqualTo(T0 + 80 * MS);
    // With a call in flight the idle clock is looked at again a whole timeout from now.
    assertThat(policy.nextDeadline(T0 + 7 * MS, T0, NONE, NONE, 1, NONE, NONE))
        .isEqualTo(T0 + 307 * MS);
    assertThat(policy.nextDeadline(T0, T0, NONE, NONE, 0, T0 - MS, NONE)).isEqualTo(T0 + 49 * MS);
  }

  @Test
  void clocksNearTheWrapOfNanoTimeStillCompare() {
    long start = Long.MAX_VALUE - 100 * MS;
    Verdict v =
        policy.check(start + 300 * MS, start, NONE, NONE, 0, NONE, NONE); // wrapped past MAX
    assertThat(v.kind()).isEqualTo(Kind.IDLE);
    assertThat(TimeoutPolicy.stamp(0)).isNotEqualTo(NONE);
  }
}
