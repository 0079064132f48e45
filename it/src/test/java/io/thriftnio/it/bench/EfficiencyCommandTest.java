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
 * The {@code efficiency} command end to end on two rows and one scenario: server children, pinning
 * where the machine allows it, CPU and allocation sampling, and every output file.
 */
class EfficiencyCommandTest {

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return BenchMain.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  /** Several IO thread counts: one run per count, each in its own folder, naming its count. */
  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void ioThreadCountsRunOneMeasurementEach() throws Exception {
    int status =
        run(
            "efficiency",
            "--servers",
            "netty/same-thread",
            "--scenarios",
            "seq-1",
            "--io-threads",
            "1,2",
            "--rounds",
            "1",
            "--warmup",
            "0s",
            "--warmup-calls",
            "0",
            "--duration",
            "300ms",
            "--no-pin",
            "--out",
            dir.toString());

    assertThat(status).as(err.toString()).isZero();
    assertThat(err.toString())
        .contains("efficiency: io-threads 1 into " + dir.resolve("io1"))
        .contains("efficiency: io-threads 2 into " + dir.resolve("io2"));
    for (int n : new int[] {1, 2}) {
      List<String> csv =
          Files.readAllLines(dir.resolve("io" + n).resolve("results.csv"), StandardCharsets.UTF_8);
      assertThat(csv).hasSize(2);
      assertThat(csv.get(1)).startsWith("netty/same-thread,");
      assertThat(Files.readString(dir.resolve("io" + n).resolve("results.json")))
          .contains("\"server_io_threads\": " + n);
    }
    assertThat(run("efficiency", "--io-threads", "1,0", "--servers", "raw-echo")).isNotZero();
    assertThat(err.toString()).contains("io-threads: 0 (expected: 1..1024)");
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void twoRowsGiveCallsAndCpuPerCallForEveryRow() throws Exception {
    int status =
        run(
            "efficiency",
            "--servers",
            "raw-echo,thrift-threadpool",
            "--scenarios",
            "seq-1",
            "--rounds",
            "1",
            "--warmup",
            "200ms",
            "--duration",
            "1s",
            "--out",
            dir.toString());

    assertThat(status).as(err.toString()).isZero();
    assertThat(err.toString())
        .contains("round 1/1 cell 1/2 raw-echo seq-1")
        .contains("round 1/1 cell 2/2 thrift-threadpool seq-1")
        .containsAnyOf("(taskset -c)", "unpinned");
    assertThat(out.toString())
        .startsWith(
            EfficiencyReports.SERVER_CAPTION
                + "\n\n| server | scenario | calls/s | server us/call | vs raw-echo |")
        // A cell run beside other load is marked "*" (LoadMarks); this machine may be shared.
        .containsPattern("\\| raw-echo( \\*)? \\| seq-1 \\|")
        .containsPattern("\\| thrift-threadpool( \\*)? \\| seq-1 \\|");

    List<String> csv = Files.readAllLines(dir.resolve("results.csv"), StandardCharsets.UTF_8);
    assertThat(csv.get(0)).isEqualTo(EfficiencyReports.CSV_HEADER);
    assertThat(csv).hasSize(3);
    List<String> header = List.of(csv.get(0).split(","));
    for (String line : csv.subList(1, csv.size())) {
      Map<String, String> row = new LinkedHashMap<>();
      String[] f = line.split(",", -1);
      for (int i = 0; i < header.size(); i++) {
        row.put(header.get(i), f[i]);
      }
      assertThat(Double.parseDouble(row.get("calls_per_sec"))).as(line).isPositive();
      assertThat(Double.parseDouble(row.get("server_us_per_call"))).as(line).isPositive();
      assertThat(Double.parseDouble(row.get("client_us_per_call"))).as(line).isPositive();
      assertThat(Double.parseDouble(row.get("p50_us"))).as(line).isPositive();
      assertThat(Double.parseDouble(row.get("server_alloc_bytes_per_call"))).as(line).isPositive();
      assertThat(row.get("errors")).as(line).isEqualTo("0");
    }
    assertThat(csv.get(1)).startsWith("raw-echo,seq-1,tsocket,1,1,1,");
    assertThat(csv.get(2)).startsWith("thrift-threadpool,seq-1,tsocket,1,1,1,");

    String json = Files.readString(dir.resolve("results.json"));
    assertThat(json)
        .contains("\"pinning\": {\"pinned\": ")
        .contains("\"rounds\": [{\"calls\": ")
        .contains("\"server\": \"thrift-threadpool\"");
    assertThat(Files.readString(dir.resolve("report.md")))
        .contains("# thrift-nio efficiency: CPU per call")
        .contains("- pinning: ")
        .contains("![efficiency-server-us-per-call.png](efficiency-server-us-per-call.png)");
    byte[] png = Files.readAllBytes(dir.resolve("efficiency-server-us-per-call.png"));
    assertThat(png).hasSizeGreaterThan(1000);
    assertThat(png[1]).isEqualTo((byte) 'P');
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void noPinRunsTheLoadGeneratorHereAndSaysSo() throws Exception {
    int status =
        run(
            "efficiency",
            "--servers",
            "raw-echo",
            "--scenarios",
            "seq-1",
            "--rounds",
            "1",
            "--warmup",
            "100ms",
            "--duration",
            "500ms",
            "--no-pin",
            "--out",
            dir.toString());

    assertThat(status).as(err.toString()).isZero();
    assertThat(err.toString())
        .contains("efficiency: unpinned: --no-pin")
        .doesNotContain("child JVM on CPU");
    assertThat(Files.readString(dir.resolve("report.md"))).contains("- pinning: unpinned");
    List<String> csv = Files.readAllLines(dir.resolve("results.csv"), StandardCharsets.UTF_8);
    assertThat(csv).hasSize(2);
    String[] f = csv.get(1).split(",", -1);
    assertThat(Double.parseDouble(f[6])).as("calls/s").isPositive();
    assertThat(Double.parseDouble(f[7])).as("server us/call").isPositive();
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aTlsRowsServeChildAndTheClientsShareTheRunsCa() throws Exception {
    // Were the child's CA not the one the clients trust, every handshake would fail: errors.
    int status =
        run(
            "efficiency",
            "--servers",
            "netty-tls/same-thread",
            "--scenarios",
            "seq-1",
            "--rounds",
            "1",
            "--warmup",
            "100ms",
            "--warmup-calls",
            "0",
            "--duration",
            "500ms",
            "--no-pin",
            "--out",
            dir.toString());

    assertThat(status).as(err.toString()).isZero();
    assertThat(err.toString()).doesNotContain("skipped");
    List<String> csv = Files.readAllLines(dir.resolve("results.csv"), StandardCharsets.UTF_8);
    assertThat(csv).hasSize(2);
    assertThat(csv.get(1)).startsWith("netty-tls/same-thread,seq-1,tsocket,");
    List<String> header = List.of(csv.get(0).split(","));
    String[] f = csv.get(1).split(",", -1);
    assertThat(Double.parseDouble(f[header.indexOf("calls_per_sec")])).as("calls/s").isPositive();
    assertThat(f[header.indexOf("errors")]).as("errors").isEqualTo("0");
  }

  @Test
  void badOptionsAreRejectedWithTheValue() {
    assertThat(run("efficiency", "--scenarios", "nope")).isEqualTo(2);
    assertThat(err.toString()).contains("scenario: nope (expected: all or one of [tsocket-40,");
    assertThat(run("efficiency", "--rounds", "0")).isEqualTo(2);
    assertThat(err.toString()).contains("rounds: 0 (expected: 1..100)");
    assertThat(run("efficiency", "--servers", "nosuch")).isEqualTo(2);
    assertThat(err.toString()).contains("server: nosuch");
    assertThat(run("efficiency", "--duration", "0s")).isEqualTo(2);
    assertThat(err.toString()).contains("duration: 0s (expected: > 0)");
  }

  @Test
  void scenariosResolveToTheirClientShapes() {
    List<EfficiencyScenario> all = EfficiencyScenario.resolve(List.of("all"));
    assertThat(all)
        .extracting(EfficiencyScenario::shape)
        .containsExactly(
            "tsocket x40",
            "netty-async 8x32",
            "tsocket x1",
            "tsocket x1",
            "netty-sync x1",
            "grizzly-sync x1",
            "thttpclient x40");
    assertThat(all.get(3).runsOn("thrift-threadpool")).isTrue();
    assertThat(all.get(3).runsOn("netty/worker")).isFalse();
    assertThat(all.get(0).runsOn("netty/worker")).isTrue();
  }

  @Test
  void bareQuickPresetMeasuresAsEfficiencyAndAnyShapingOptionKeepsTheMatrix() {
    MatrixCommand bare = new MatrixCommand();
    bare.preset = "quick";
    bare.inFlight = 1;
    assertThat(bare.quickRunsEfficiency()).isTrue();
    bare.inProcess = true;
    assertThat(bare.quickRunsEfficiency()).isFalse();

    MatrixCommand shaped = new MatrixCommand();
    shaped.preset = "quick";
    shaped.inFlight = 1;
    shaped.servers = List.of("raw-echo");
    assertThat(shaped.quickRunsEfficiency()).isFalse();

    MatrixCommand seed = new MatrixCommand();
    seed.preset = "seed";
    seed.inFlight = 1;
    assertThat(seed.quickRunsEfficiency()).isFalse();

    EfficiencyCommand.Settings quick = EfficiencyCommand.quick(dir);
    assertThat(quick.servers()).containsExactlyElementsOf(EfficiencyCommand.DEFAULT_SERVERS);
    assertThat(quick.rounds()).isEqualTo(2);
    assertThat(quick.estimateSeconds()).isLessThan(5 * 60);
  }
}
