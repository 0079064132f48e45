package io.thriftnio.core.internal.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.internal.client.Messages.Call;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Which calls time out together: a decision over the calls alone, no timer, no lock. */
@Timeout(10)
class CallTimersTest {
  private static final long LATER = Duration.ofHours(1).toNanos();

  private static Call call(boolean written) {
    ByteBuffer payload = ByteBuffer.wrap("x".getBytes(StandardCharsets.US_ASCII));
    Call c = new Call(payload, Duration.ofMillis(10), Runnable::run, null);
    c.written = written;
    return c;
  }

  @Test
  void aCallTimesOutWithTheWrittenOverdueCallsAheadOfItInOrder() {
    Call a = call(true);
    Call unwritten = call(false);
    Call b = call(true);
    Call c = call(true);
    Call after = call(true);

    CallTimers.Overdue due =
        CallTimers.overdueUpTo(List.of(a, unwritten, b, c, after), c, System.nanoTime() + LATER);

    assertThat(due.calls()).containsExactly(a, b, c);
    assertThat(due.firstBehind()).isFalse();
    assertThat(c.abandoned).isFalse(); // a decision: the owner applies it
  }

  @Test
  void callsAnsweredNotYetDueOrAbandonedStayOutAndAnAbandonedOneAheadMeansBehind() {
    Call abandoned = call(true);
    abandoned.abandoned = true;
    Call settled = call(true);
    settled.settled = true;
    Call c = call(true);
    long now = System.nanoTime() + LATER;
    Call notDue = new Call(ByteBuffer.allocate(1), Duration.ofHours(2), Runnable::run, null);
    notDue.written = true;

    CallTimers.Overdue due = CallTimers.overdueUpTo(List.of(abandoned, settled, notDue, c), c, now);

    assertThat(due.calls()).containsExactly(c);
    assertThat(due.firstBehind()).isTrue();
  }
}
