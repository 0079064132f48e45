package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The medians over rounds and the ratio columns, as the reports state them. */
class EfficiencyResultTest {

  private static final EfficiencyScenario SEQ =
      new EfficiencyScenario("seq-1", "tsocket", 1, 1, null);

  /** A round of 10,000 calls in 2 s with the given server CPU (ms), p50 and allocation. */
  private static EfficiencyResult.Sample round(long serverCpuMs, long p50, long allocBytes) {
    return new EfficiencyResult.Sample(
        10_000,
        2.0,
        serverCpuMs * 1_000_000,
        300_000_000,
        allocBytes,
        p50,
        p50 * 3,
        0,
        0,
        0.01,
        Double.NaN);
  }

  @Test
  void medianIsTheMiddleOrTheMeanOfTheMiddleTwoAndSkipsUnknowns() {
    assertThat(EfficiencyResult.median(List.of(5.0, 1.0, 3.0))).isEqualTo(3.0);
    assertThat(EfficiencyResult.median(List.of(4.0, 1.0, 3.0, 10.0))).isEqualTo(3.5);
    assertThat(EfficiencyResult.median(List.of(Double.NaN, 2.0, 8.0))).isEqualTo(5.0);
    assertThat(EfficiencyResult.median(List.of(Double.NaN))).isNaN();
    assertThat(EfficiencyResult.median(List.of())).isNaN();
  }

  @Test
  void everyColumnIsTheMedianOfItsOwnValuesOverTheRounds() {
    // Server CPU 200, 100, 900 ms over 10,000 calls: 20, 10, 90 us/call; median 20.
    // p50 70, 50, 60: median 60, from another round than the CPU's median.
    EfficiencyResult r =
        new EfficiencyResult(
            "netty/worker",
            SEQ,
            List.of(round(200, 70, 5_000_000), round(100, 50, 1_000_000), round(900, 60, -1)),
            null);
    assertThat(r.serverUsPerCall()).isCloseTo(20.0, within(1e-9));
    assertThat(r.p50Us()).isEqualTo(60.0);
    assertThat(r.p99Us()).isEqualTo(180.0);
    assertThat(r.callsPerSec()).isEqualTo(5_000.0);
    assertThat(r.clientUsPerCall()).isCloseTo(30.0, within(1e-9));
    // The third round's allocation is unknown: the median of 500 and 100 B/call.
    assertThat(r.serverAllocPerCall()).isCloseTo(300.0, within(1e-9));
  }

  @Test
  void ratiosDivideByTheReferenceRowUnderTheSameScenario() {
    EfficiencyResult raw = new EfficiencyResult("raw-echo", SEQ, List.of(round(100, 40, 0)), null);
    EfficiencyResult pool =
        new EfficiencyResult("thrift-threadpool", SEQ, List.of(round(200, 50, 0)), null);
    EfficiencyResult netty =
        new EfficiencyResult("netty/same-thread", SEQ, List.of(round(300, 60, 0)), null);
    List<EfficiencyResult> all = List.of(raw, pool, netty);
    assertThat(
            EfficiencyReports.ratioValue(
                netty, all, "raw-echo", null, EfficiencyResult::serverUsPerCall))
        .isCloseTo(3.0, within(1e-9));
    assertThat(
            EfficiencyReports.ratioValue(
                netty, all, "thrift-threadpool", null, EfficiencyResult::p50Us))
        .isCloseTo(1.2, within(1e-9));
    assertThat(
            EfficiencyReports.ratioValue(
                netty, List.of(netty), "raw-echo", null, EfficiencyResult::serverUsPerCall))
        .isNaN();
    assertThat(EfficiencyReports.serverTable(all))
        .contains(
            "| netty/same-thread | seq-1 | 5,000 | 30.00 | 3.00x | 1.50x | 30.00 | 60 "
                + "| 1.20x | 180 | 0 | 0 | 1% |");
  }
}
