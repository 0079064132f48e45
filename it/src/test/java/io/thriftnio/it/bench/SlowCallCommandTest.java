package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code slowcall} end to end, short: one slow call among a few echo callers. */
class SlowCallCommandTest {

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aSlowCallTimesOutAloneAndTheTableSaysSo() throws Exception {
    int status =
        BenchMain.execute(
            new String[] {
              "slowcall",
              "--callers",
              "4",
              "--warmup",
              "1s",
              "--duration",
              "3s",
              // Generous for a loaded machine: an echo timing out on its own is no failure of
              // the claim, but it may make the pool open a connection (a finding, exit 1).
              "--request-timeout",
              "1s",
              "--slow-millis",
              "2000",
              "--slow-calls",
              "1",
              "--out",
              dir.toString()
            },
            new PrintWriter(out, true),
            new PrintWriter(err, true));

    String table = out.toString();
    assertThat(table).as(err.toString()).contains(SlowCallReport.HEADER);
    // server, callers, ok, failed because of another call, behind, own, ejected, slow timed out
    assertThat(table)
        .containsPattern(
            "\\| netty/worker \\| 4 \\| [1-9][0-9,]* \\| 0 \\| \\d+ \\| \\d+ \\| 0 \\| 1 of 1 \\|");
    boolean findings = !table.contains("- findings: none");
    assertThat(status).as(table).isEqualTo(findings ? 1 : 0);
    assertThat(Files.readString(dir.resolve("slowcall.md"))).isEqualTo(table);
    List<String> csv = Files.readAllLines(dir.resolve("slowcall.csv"), StandardCharsets.UTF_8);
    assertThat(csv).hasSize(2);
    assertThat(csv.get(0)).isEqualTo(SlowCallReport.CSV_HEADER.strip());
    assertThat(csv.get(1)).startsWith("netty/worker,4,1.000,3.000,1000,2000,1,");
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void refusesASlowCallThatWouldNotTimeOut() {
    int status =
        BenchMain.execute(
            new String[] {"slowcall", "--request-timeout", "1s", "--slow-millis", "1000"},
            new PrintWriter(out, true),
            new PrintWriter(err, true));

    assertThat(status).isEqualTo(2);
    assertThat(err.toString())
        .contains("slow-millis: 1000 (expected: > request-timeout 1000 ms, so that each slow call");
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void refusesMoreSlowCallsThanTheRunCanWatch() {
    int status =
        BenchMain.execute(
            new String[] {"slowcall", "--duration", "6s", "--slow-calls", "6"},
            new PrintWriter(out, true),
            new PrintWriter(err, true));

    assertThat(status).isEqualTo(2);
    assertThat(err.toString())
        .contains("slow-calls: 6 (expected: 1..5: one a second from 1 s, the last late reply");
  }
}
