package io.thriftnio.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link ServerStats} is read by name: each count its own accessor, 0 unless set. */
@Timeout(10)
class ServerStatsTest {

  @Test
  void eachCountIsItsOwnAndTheRestAreZero() {
    ServerStats s = ServerStats.builder().completedCalls(7).saslFailures(2).build();
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
    ServerStats a = ServerStats.builder().badFrames(1).build();
    assertThat(a).isEqualTo(ServerStats.builder().badFrames(1).build());
    assertThat(a).hasSameHashCodeAs(ServerStats.builder().badFrames(1).build());
    assertThat(a).isNotEqualTo(ServerStats.builder().badFrames(2).build());
  }
}
