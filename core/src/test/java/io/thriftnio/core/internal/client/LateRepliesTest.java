package io.thriftnio.core.internal.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The stuck-connection rule on a hand-driven clock and timer: no sleeps. */
@Timeout(10)
class LateRepliesTest {
  private static final long MS = 1_000_000L;

  private final List<Long> delays = new ArrayList<>();
  private final LateReplies late =
      new LateReplies(100 * MS, (task, nanos) -> delays.add(nanos), () -> {});

  @Test
  void aConnectionOwingAReplyWithNoReplyForTheTimeoutIsStuck() {
    late.owe(0);
    assertThat(delays).containsExactly(100 * MS);
    assertThat(late.onTimer(100 * MS))
        .isEqualTo(
            "no reply for 100 ms while 1 timed-out calls owed theirs (lateReplyTimeout 100 ms)");
  }

  @Test
  void eachReplyRestartsTheWait() {
    late.owe(0);
    late.owe(10 * MS); // a second timed-out call; the timer is armed once
    assertThat(delays).containsExactly(100 * MS);
    late.replied(false, 60 * MS); // a reply to a call ahead of them: the connection lives
    assertThat(late.onTimer(100 * MS)).isNull();
    assertThat(delays).containsExactly(100 * MS, 60 * MS); // re-armed for 60 + 100
    late.replied(true, 150 * MS); // the first late reply
    assertThat(late.owed()).isEqualTo(1);
    assertThat(late.onTimer(160 * MS)).isNull();
    assertThat(late.onTimer(250 * MS)).contains("no reply for 100 ms while 1 timed-out calls");
  }

  @Test
  void nothingOwedIsNeverStuck() {
    late.owe(0);
    late.replied(true, 5 * MS);
    assertThat(late.owed()).isZero();
    assertThat(late.onTimer(500 * MS)).isNull();
    assertThat(delays).hasSize(1); // not re-armed with nothing owed
    late.owe(600 * MS);
    assertThat(delays).containsExactly(100 * MS, 100 * MS);
  }

  @Test
  void aRefusingTimerLeavesTheRuleToTheClose() {
    LateReplies closing =
        new LateReplies(
            100 * MS,
            (task, nanos) -> {
              throw new java.util.concurrent.RejectedExecutionException("shut down");
            },
            () -> {});
    closing.owe(0); // must not throw: the resources' close ends the connection
    assertThat(closing.owed()).isEqualTo(1);
  }
}
