package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** How an equal-load cell reads its rounds: medians, the sustained majority, the latency target. */
class EqualLoadResultTest {

  private static final EqualLoad.Shape SHAPE = new EqualLoad.Shape("open-40", 40, 1, List.of());

  @Test
  void theLatencyTargetIsReadAtEightyPercentOnly() {
    assertThat(cell(80, round(1000, 1000, 1000, 100, 200, 5)).latencyTarget()).isEqualTo("met");
    assertThat(cell(80, round(1000, 1000, 1000, 100, 201, 5)).latencyTarget()).isEqualTo("missed");
    assertThat(cell(50, round(1000, 1000, 1000, 100, 900, 5)).latencyTarget()).isNull();
  }

  @Test
  void aRateNotSustainedMissesTheTargetWhateverItsRatio() {
    // Answered 90%: the backlog grows, so the percentiles grow with the window.
    EqualLoadResult r = cell(80, round(1000, 1000, 900, 100, 150, 5));
    assertThat(r.sustained()).isFalse();
    assertThat(r.latencyTarget()).isEqualTo("missed");
  }

  @Test
  void aGeneratorThatCouldNotSendTheRateIsNeitherMetNorMissed() {
    EqualLoadResult r = cell(80, round(1000, 500, 500, 100, 150, 5));
    assertThat(r.latencyTarget()).isEqualTo("generator-limited");
  }

  @Test
  void sustainedMeansAMajorityOfTheRounds() {
    EqualLoadResult r =
        cell(
            0,
            round(1000, 1000, 1000, 100, 150, 5),
            round(1000, 1000, 500, 100, 150, 5),
            round(1000, 1000, 990, 100, 150, 5));
    assertThat(r.sustainedRounds()).isEqualTo(2);
    assertThat(r.sustained()).isTrue();
    assertThat(r.achieved()).isEqualTo(990.0);
    assertThat(cell(0, round(1000, 1000, 1000, 1, 1, 5), round(1000, 1000, 1, 1, 1, 5)).sustained())
        .isFalse();
  }

  private static EqualLoadResult cell(int percent, EqualLoadResult.Round... rounds) {
    EqualLoadResult r = EqualLoadResult.of("netty/worker", SHAPE, "netty-async", percent, 0);
    r.rounds().addAll(List.of(rounds));
    return r;
  }

  private static EqualLoadResult.Round round(
      double target, long sent, long answered, long p50, long p99, double backlog) {
    RateRun run =
        new RateRun(target, sent, answered, 1.0, p50, p99, p99, p99, 10, backlog, backlog, 0, 0);
    EfficiencyResult.Sample cost =
        new EfficiencyResult.Sample(
            answered, 1.0, 1_000_000, 1_000_000, 1000, p50, p99, 0, 0, 0, 0);
    return new EqualLoadResult.Round(run, cost, 1250);
  }
}
