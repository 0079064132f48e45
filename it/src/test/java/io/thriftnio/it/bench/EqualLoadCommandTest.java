package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code efficiency --rates / --at-load} end to end on tiny durations: the open loop keeps a low
 * rate, reports an impossible one as not sustained instead of hanging, finds a row's maximum, and
 * rejects bad values by name. No test here asserts a timing beyond "the schedule was kept at 2,000
 * calls/s".
 */
class EqualLoadCommandTest {

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return BenchMain.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  private List<Map<String, String>> csv() throws Exception {
    List<String> lines = Files.readAllLines(dir.resolve("equal-load.csv"), StandardCharsets.UTF_8);
    assertThat(lines.get(0)).isEqualTo(EqualLoadReports.CSV_HEADER);
    List<String> header = List.of(lines.get(0).split(","));
    return lines.subList(1, lines.size()).stream()
        .map(
            line -> {
              String[] f = line.split(",", -1);
              Map<String, String> row = new LinkedHashMap<>();
              for (int i = 0; i < header.size(); i++) {
                row.put(header.get(i), f[i]);
              }
              return row;
            })
        .toList();
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void aLowRateIsKeptAndReportsItsPercentiles() throws Exception {
    // Pinned where the machine allows: the load generator child gets --rates on its command line.
    int status =
        run(
            "efficiency",
            "--servers",
            "netty/same-thread",
            "--rates",
            "2000",
            "--rounds",
            "1",
            // A cold client and server JVM on a busy machine may answer nothing for seconds: the
            // warm-up (twice this for the first cell, and on, up to 4 times, until 2,000 calls are
            // answered and the server's JIT is quiet) lets one measured second show the schedule.
            "--warmup",
            "1s",
            "--warmup-calls",
            "2000",
            "--duration",
            "1s",
            "--out",
            dir.toString());

    assertThat(status).as(err.toString()).isZero();
    assertThat(err.toString())
        .contains("round 1/1 cell 1/1 netty/same-thread open-40 2,000/s: target 2,000/s");
    assertThat(out.toString())
        .startsWith(EqualLoadReports.RATE_CAPTION + "\n\n| server | shape | target calls/s |")
        .contains("| netty/same-thread | open-40 (netty-async) | 2,000 |");
    List<Map<String, String>> rows = csv();
    assertThat(rows).hasSize(1);
    Map<String, String> row = rows.get(0);
    assertThat(row.get("client")).isEqualTo("netty-async");
    assertThat(row.get("connections")).isEqualTo("40");
    assertThat(Double.parseDouble(row.get("target_calls_per_sec"))).isEqualTo(2000.0);
    // The generator keeps the schedule: 2,000 calls/s sent over the window, whatever the server
    // does; the slack is for a load generator starved by other builds at the window's edges.
    assertThat(Double.parseDouble(row.get("offered_calls_per_sec")))
        .as(err.toString())
        .isBetween(1600.0, 2400.0);
    // What the server answered in the window is a measurement (a busy machine answers the
    // warm-up's backlog in it too), not a property: it ran, and answered.
    assertThat(Double.parseDouble(row.get("achieved_calls_per_sec"))).isPositive();
    assertThat(Double.parseDouble(row.get("p50_us"))).isPositive();
    assertThat(Double.parseDouble(row.get("p99_us")))
        .isGreaterThanOrEqualTo(Double.parseDouble(row.get("p50_us")));
    assertThat(Double.parseDouble(row.get("p999_us")))
        .isGreaterThanOrEqualTo(Double.parseDouble(row.get("p99_us")));
    assertThat(Double.parseDouble(row.get("server_us_per_call"))).isPositive();
    assertThat(row.get("errors")).isEqualTo("0");
    assertThat(Files.readString(dir.resolve("equal-load.md")))
        .contains("# thrift-nio efficiency: equal load")
        .contains(RateRun.rule());
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void anImpossibleRateIsReportedAsNotSustained() throws Exception {
    int status =
        run(
            "efficiency",
            "--servers",
            "raw-echo",
            "--rates",
            "10000000",
            "--rounds",
            "1",
            "--warmup",
            "0s",
            "--warmup-calls",
            "0",
            "--duration",
            "1s",
            "--no-pin",
            "--out",
            dir.toString());

    assertThat(status).as(err.toString()).isZero();
    assertThat(err.toString()).contains("target 10,000,000/s").contains("(not sustained)");
    assertThat(out.toString()).contains("| raw-echo | open-40 (netty-async) | 10,000,000 |");
    Map<String, String> row = csv().get(0);
    assertThat(row.get("sustained_rounds")).isEqualTo("0");
    assertThat(Double.parseDouble(row.get("achieved_calls_per_sec"))).isLessThan(9_800_000.0);
    // The generator sent what the lanes took (1,024 per connection at once) and then some; a cold
    // JVM on a busy machine may not see a reply inside its first second, so that is not asserted.
    assertThat(Double.parseDouble(row.get("offered_calls_per_sec"))).isPositive();
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void atLoadFindsEachShapesMaximumAndMarksTheLatencyTarget() throws Exception {
    int status =
        run(
            "efficiency",
            "--servers",
            "raw-echo",
            "--at-load",
            "80",
            "--rounds",
            "1",
            "--warmup",
            "0s",
            "--warmup-calls",
            "0",
            "--duration",
            "1s",
            "--no-pin",
            "--out",
            dir.toString());

    assertThat(status).as(err.toString()).isZero();
    assertThat(err.toString())
        .contains("raw-echo open-40 max (closed loop 40x1): ")
        .contains("raw-echo open-8 max (closed loop 8x32): ")
        .contains("raw-echo open-8 80% of max: target ");
    assertThat(out.toString()).startsWith(EqualLoadReports.AT_LOAD_CAPTION);
    List<Map<String, String>> rows = csv();
    assertThat(rows).extracting(r -> r.get("shape")).containsExactly("open-40", "open-8");
    for (Map<String, String> row : rows) {
      double max = Double.parseDouble(row.get("max_calls_per_sec"));
      assertThat(max).as("max").isPositive();
      assertThat(Double.parseDouble(row.get("target_calls_per_sec")))
          .isCloseTo(0.8 * max, org.assertj.core.data.Offset.offset(1.0));
      assertThat(row.get("load_percent")).isEqualTo("80");
      assertThat(row.get("p99_target")).isIn("met", "missed", "generator-limited");
    }
  }

  @Test
  void badRatesAndSharesAreRejectedWithTheValue() {
    assertThat(run("efficiency", "--rates", "10000,fast")).isEqualTo(2);
    assertThat(err.toString())
        .contains("rates: fast (expected: calls per second, 1..100,000,000, comma-separated,");
    assertThat(run("efficiency", "--rates", "0")).isEqualTo(2);
    assertThat(err.toString()).contains("rates: 0 (expected: calls per second");
    assertThat(run("efficiency", "--pipelined-rates", "-5")).isEqualTo(2);
    assertThat(err.toString()).contains("pipelined-rates: -5 (expected: calls per second");
    assertThat(run("efficiency", "--at-load", "120")).isEqualTo(2);
    assertThat(err.toString())
        .contains("at-load: 120 (expected: percents of each row's maximum, 1..100");
    assertThat(run("efficiency", "--rates", "10k", "--rate-connections", "0")).isEqualTo(2);
    assertThat(err.toString()).contains("rate-connections: 0 (expected: 1..10000)");
  }

  @Test
  void ratesAcceptSuffixesAndMakeTheShapes() {
    EqualLoad eq =
        EqualLoad.parse(List.of("10k", "40000"), List.of("0.1m"), List.of("50", "80"), 40, null);
    assertThat(eq.rates()).containsExactly(10_000.0, 40_000.0);
    assertThat(eq.pipelinedRates()).containsExactly(100_000.0);
    assertThat(eq.shapes())
        .extracting(
            EqualLoad.Shape::name, EqualLoad.Shape::connections, EqualLoad.Shape::probeDepth)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("open-40", 40, 1),
            org.assertj.core.groups.Tuple.tuple("open-8", 8, 32));
    // probes and shares on both shapes, plus two and one fixed rates
    assertThat(eq.cellsPerRow()).isEqualTo(3 + 3 + 2 + 1);
    assertThat(eq.args())
        .containsExactly(
            "--rates",
            "10000,40000",
            "--pipelined-rates",
            "100000",
            "--at-load",
            "50,80",
            "--rate-connections",
            "40");
    assertThat(EqualLoad.parse(null, null, null, 40, null)).isNull();
  }
}
