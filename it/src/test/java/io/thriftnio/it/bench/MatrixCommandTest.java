package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The {@code matrix} command end to end, its reports, and its option handling. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MatrixCommandTest {

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return BenchMain.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  @Test
  void smallRunWritesTheTableAndEveryReportFile() throws Exception {
    int status =
        run(
            "matrix",
            "--servers",
            "raw-echo,thrift-nonblocking",
            "--clients",
            "tsocket",
            "--sizes",
            "300",
            "--protocols",
            "compact",
            "--connections",
            "1,2",
            "--warmup",
            "100ms",
            "--duration",
            "300ms",
            "--out",
            dir.toString());

    assertThat(status).as(err.toString()).isZero();
    assertThat(out.toString())
        .startsWith(
            Reports.RESULTS_CAPTION
                + "\n\n| server | client | size | protocol | connections | calls/s |")
        .contains("| raw-echo | tsocket | 300 | compact | 2 |")
        .contains("| thrift-nonblocking | tsocket | 300 | compact | 1 |");
    List<String> csv = Files.readAllLines(dir.resolve("results.csv"), StandardCharsets.UTF_8);
    assertThat(csv.get(0))
        .isEqualTo(
            "server,client,size,protocol,connections,calls_per_sec,"
                + "p50_us,p99_us,p999_us,errors");
    assertThat(csv).hasSize(1 + 4);
    assertThat(csv.get(1)).startsWith("raw-echo,tsocket,300,compact,1,").endsWith(",0");
    assertThat(Files.readString(dir.resolve("results.json")))
        .contains("\"results\": [")
        .contains("\"server\": \"thrift-nonblocking\"")
        .contains("\"check_failures\": 0");
    assertThat(Files.readString(dir.resolve("report.md")))
        .contains("# thrift-nio throughput matrix")
        .contains("| raw-echo | tsocket |")
        .contains("![calls-by-server-300-compact.png](calls-by-server-300-compact.png)");
    assertPng(dir.resolve("calls-by-server-300-compact.png"));
    assertPng(dir.resolve("calls-by-connections-300-compact-tsocket.png"));
    assertThat(err.toString()).contains("cell 4/4");
  }

  @Test
  void skippedCellsArePrintedWithTheirReason() {
    int status =
        run(
            "matrix",
            "--servers",
            "thrift-simple",
            "--clients",
            "tsocket",
            "--sizes",
            "300",
            "--connections",
            "2",
            "--warmup",
            "0s",
            "--duration",
            "100ms",
            "--out",
            dir.toString());

    assertThat(status).isZero();
    assertThat(out.toString())
        .contains("Skipped:")
        .contains("thrift-simple tsocket 300 compact x2: TSimpleServer serves one connection");
    assertThat(err.toString()).contains("skipped thrift-simple");
  }

  @Test
  void everyCommandHasHelp() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString()).contains("serve").contains("matrix");
    assertThat(run("serve", "--help")).isZero();
    assertThat(out.toString())
        .contains("--server=S")
        .contains("--strategy=T")
        .contains("listening on HOST:PORT");
    assertThat(run("matrix", "--help")).isZero();
    assertThat(out.toString())
        .contains("--preset")
        .contains("--target=HOST:PORT")
        .contains("--connections");
  }

  @Test
  void badValuesAreUsageErrorsThatNameTheValue() {
    assertThat(run("matrix", "--preset", "nope")).isEqualTo(2);
    assertThat(err.toString()).contains("preset: nope (expected: one of [quick, seed");
    assertThat(run("matrix", "--servers", "tomcat")).isEqualTo(2);
    assertThat(err.toString()).contains("server: tomcat");
    assertThat(run("matrix", "--connections", "0")).isEqualTo(2);
    assertThat(err.toString()).contains("connections: 0 (expected: 1..10000)");
    assertThat(run("matrix", "--sizes", "17m")).isEqualTo(2);
    assertThat(err.toString()).contains("size: 17m");
    assertThat(run("matrix", "--warmup", "soon")).isEqualTo(2);
    assertThat(run("serve", "--server", "thrift-hsha", "--strategy", "worker")).isEqualTo(2);
    assertThat(err.toString())
        .contains(
            "only [netty, netty-nio, netty-epoll, netty-iouring, netty-tls, netty-openssl,"
                + " netty-empty-chain, netty-one-interceptor, grizzly, grizzly-tls,"
                + " grizzly-empty-chain, grizzly-one-interceptor] take one");
  }

  @Test
  void presetsResolveToTheIssuesGrids() {
    MatrixCommand quick = new MatrixCommand();
    quick.preset = "quick";
    quick.callTimeout = Duration.ofSeconds(30);
    quick.inFlight = 1;
    MatrixPlan plan = quick.plan(Rows.standard());
    assertThat(plan.grids())
        .singleElement()
        .satisfies(
            g -> {
              assertThat(g.workloads()).extracting(Workload::label).containsExactly("300", "3k");
              assertThat(g.protocols()).containsExactly("compact");
              assertThat(g.connections()).containsExactly(1, 40);
            });
    assertThat(plan.servers()).contains("raw-echo", "thrift-threadpool", "thrift-simple");

    Presets seed = Presets.of("seed");
    assertThat(seed.grids()).hasSize(2);
    assertThat(seed.grids().get(1).connections())
        .containsExactly(20, 40, 60, 80, 100, 120, 150, 500, 1000);
    Presets sleep = Presets.of("sleep");
    assertThat(sleep.serverIoThreads()).isEqualTo(1);
    assertThat(sleep.serverWorkers()).isEqualTo(10);
    assertThat(sleep.grids().get(0).workloads().get(0).label()).isEqualTo("sleep(100)");
    assertThat(Presets.of("pool").clients())
        .containsExactly("per-call-connection", "pooled-sync", "pooled-async");
    assertThat(Presets.of("dbwork").grids().get(0).connections()).containsExactly(64);
  }

  @Test
  void durationsAndServerNamesParse() {
    assertThat(Cli.parseDuration("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(Cli.parseDuration("2s")).isEqualTo(Duration.ofSeconds(2));
    assertThat(Cli.parseDuration("1.5s")).isEqualTo(Duration.ofMillis(1500));
    assertThat(Cli.parseDuration("1m")).isEqualTo(Duration.ofMinutes(1));
    assertThat(Cli.parseDuration("3")).isEqualTo(Duration.ofSeconds(3));
    assertThatThrownBy(() -> Cli.parseDuration("2h")).hasMessageContaining("duration: 2h");
    assertThat(ServeCommand.rowName("netty", null)).isEqualTo("netty/worker");
    assertThat(ServeCommand.rowName("grizzly", "leader-follower"))
        .isEqualTo("grizzly/leader-follower");
    assertThat(ServeCommand.rowName("raw-echo", null)).isEqualTo("raw-echo");
    assertThat(ServeCommand.rowName("netty-epoll", "same-thread"))
        .isEqualTo("netty-epoll/same-thread");
    assertThat(ServeCommand.rowName("netty-iouring", null)).isEqualTo("netty-iouring/worker");
    assertThatThrownBy(() -> ServeCommand.rowName("netty", "fast"))
        .hasMessageContaining("strategy: fast");
    Rows rows = Rows.standard();
    assertThat(rows.expandServers(List.of("stock")))
        .containsExactly(
            "thrift-simple",
            "thrift-threadpool",
            "thrift-nonblocking",
            "thrift-hsha",
            "thrift-threaded-selector");
    assertThat(rows.expandServers(List.of("netty")))
        .containsExactly("netty/same-thread", "netty/worker");
    assertThat(rows.expandClients(List.of("all")))
        .contains("tsocket", "netty-async", "pooled-async")
        .doesNotContain("per-call-connection");
  }

  @Test
  void csvHeaderIsExactAndSkippedCellsStayOutOfIt() {
    CellSpec cell =
        new CellSpec(
            "a",
            "b",
            Workload.echo(300),
            "binary",
            1,
            1,
            0,
            false,
            Duration.ZERO,
            Duration.ofSeconds(1),
            0,
            Duration.ofSeconds(1));
    String csv = Reports.csv(List.of(CellResult.skipped(cell, "why")));
    assertThat(csv).isEqualTo(Reports.CSV_HEADER + "\n");
    assertThat(Reports.CSV_HEADER)
        .isEqualTo(
            "server,client,size,protocol,connections,calls_per_sec,"
                + "p50_us,p99_us,p999_us,errors");
  }

  private static void assertPng(Path file) throws Exception {
    byte[] head = new byte[8];
    try (var in = Files.newInputStream(file)) {
      assertThat(in.read(head)).isEqualTo(8);
    }
    assertThat(head).startsWith((byte) 0x89, (byte) 'P', (byte) 'N', (byte) 'G');
  }
}
