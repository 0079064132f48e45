package io.thriftnio.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.util.internal.ServerCounters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link ServerStats} is read by name: each count its own accessor, taken from the counters. */
@Timeout(10)
class ServerStatsTest {

  private static ServerStats stats(long completedCalls, long saslFailures, long badFrames) {
    ServerCounters counters = new ServerCounters();
    counters.completedCalls.add(completedCalls);
    counters.saslFailures.add(saslFailures);
    counters.badFrames.add(badFrames);
    return counters.snapshot(ServerStats.class);
  }

  @Test
  void eachCountIsItsOwnAndTheRestAreZero() {
    ServerStats s = stats(7, 2, 0);
    assertThat(s.completedCalls()).isEqualTo(7);
    assertThat(s.saslFailures()).isEqualTo(2);
    assertThat(s.acceptedConnections()).isZero();
    assertThat(s.timedOutCalls()).isZero();
    assertThat(s.toString())
        .startsWith("ServerStats[acceptedConnections=0, ")
        .contains(", completedCalls=7, ")
        .endsWith(", saslFailures=2]");
  }

  @Test
  void equalCountsAreEqualSnapshots() {
    ServerStats a = stats(0, 0, 1);
    assertThat(a).isEqualTo(stats(0, 0, 1));
    assertThat(a).hasSameHashCodeAs(stats(0, 0, 1));
    assertThat(a).isNotEqualTo(stats(0, 0, 2));
  }
}
