package io.thriftnio.core.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The idle sweep's commit against reads on another thread, step by step in every order that
 * matters: a read in progress or begun since the sweep looked keeps the connection; a read after
 * the commit is dropped before it reaches the call path.
 */
@Timeout(10)
class ReadActivityTest {

  private final ReadActivity reads = new ReadActivity();

  @Test
  void anIdleConnectionIsClaimedAndLaterReadsAreDropped() {
    reads.beginRead(1000);
    reads.endRead(1002);
    long seen = reads.snapshot();
    assertThat(ReadActivity.isReading(seen)).isFalse();
    assertThat(ReadActivity.lastRead(seen)).isEqualTo(1002);
    assertThat(reads.claimIdle(seen)).isTrue();
    assertThat(reads.isClaimed()).isTrue();
    assertThat(reads.beginRead(2000)).as("a read after the idle close").isFalse();
    reads.endRead(2002);
    assertThat(reads.isClaimed()).isTrue();
  }

  @Test
  void aReadInProgressWhenTheSweepLooksKeepsTheConnection() {
    assertThat(reads.beginRead(1000)).isTrue(); // the request is on its way to the call path
    long seen = reads.snapshot();
    assertThat(ReadActivity.isReading(seen)).isTrue();
    assertThat(reads.claimIdle(seen)).isFalse();
    reads.endRead(1010);
    assertThat(reads.beginRead(1020)).as("the connection is still served").isTrue();
  }

  @Test
  void aReadBegunAfterTheSweepLookedKeepsTheConnection() {
    long seen = reads.snapshot(); // never read: the accept time makes it idle
    assertThat(reads.beginRead(1000)).isTrue();
    assertThat(reads.claimIdle(seen)).isFalse();
    reads.endRead(1004);
    assertThat(reads.claimIdle(seen)).as("a stale snapshot never claims").isFalse();
  }

  @Test
  void aReadThatEndedAfterTheSweepLookedKeepsTheConnection() {
    reads.beginRead(1000);
    long seen = reads.snapshot();
    reads.endRead(1004);
    assertThat(reads.claimIdle(seen)).isFalse();
    assertThat(reads.claimIdle(reads.snapshot())).isTrue(); // looked again: truly idle now
  }

  @Test
  void noClockValueIsMistakenForAClaimOrForNoRead() {
    reads.beginRead(Long.MIN_VALUE);
    assertThat(reads.isClaimed()).isFalse();
    reads.endRead(Long.MIN_VALUE + 1);
    assertThat(reads.isClaimed()).isFalse();
    reads.beginRead(0);
    reads.endRead(0);
    assertThat(ReadActivity.lastRead(reads.snapshot())).isNotEqualTo(TimeoutPolicy.NONE);
    assertThat(ReadActivity.lastRead(ReadActivity.CLAIMED)).isEqualTo(TimeoutPolicy.NONE);
  }
}
