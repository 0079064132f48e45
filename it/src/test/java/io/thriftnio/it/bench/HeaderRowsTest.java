package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.WireKind;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.TradeReport;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TJSONProtocol;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The THeader kinds of the bench ({@code tsocket-header}, the library's {@code *-header} kinds) in
 * {@code matrix} and {@code efficiency --wire}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HeaderRowsTest {

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return BenchMain.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  private static ServerSpec spec(String protocol) {
    return new ServerSpec(
        MatrixRunner.LOOPBACK,
        0,
        protocol,
        2,
        1,
        false,
        16,
        null,
        false,
        EnumSet.of(WireKind.FRAMED, WireKind.HEADER),
        "/");
  }

  /** The library's THeader kinds, as {@code matrix --clients} names them. */
  private static final List<String> OUR_HEADER_KINDS =
      List.of(
          "netty-sync-header", "netty-async-header", "grizzly-sync-header", "grizzly-async-header");

  @Test
  void theBenchsTHeaderTransportCallsOurRowsInBinaryAndCompact() throws Exception {
    for (String server : List.of("netty/same-thread", "grizzly/worker")) {
      for (String protocol : List.of("binary", "compact")) {
        try (RunningServer running = Rows.standard().server(server).start(spec(protocol));
            TTransport t = TSocketHeaderKind.open(running.address(), Duration.ofSeconds(10))) {
          BenchService.Client client =
              new BenchService.Client(
                  protocol.equals("binary") ? new TBinaryProtocol(t) : new TCompactProtocol(t));
          for (int i = 0; i < 3; i++) {
            assertThat(client.get_last_sale("S" + i))
                .as("%s %s call %d", server, protocol, i)
                .isEqualTo(new TradeReport("S" + i, 25.50, 100, 1));
          }
          assertThat(client.db_work(500)).as("%s %s", server, protocol).hasSize(500);
        }
      }
    }
  }

  @Test
  void theBenchsTHeaderTransportRefusesAProtocolThatTHeaderDoesNotCarry() throws Exception {
    try (RunningServer running = Rows.standard().server("netty/worker").start(spec("json"));
        TTransport t = TSocketHeaderKind.open(running.address(), Duration.ofSeconds(10))) {
      BenchService.Client client = new BenchService.Client(new TJSONProtocol(t));
      assertThatThrownBy(() -> client.get_last_sale("X"))
          .isInstanceOf(TTransportException.class)
          .hasMessage("THeader carries strict binary or compact messages; this one starts with 5b");
    }
  }

  @Test
  void theHeaderKindsAreNamedOnlyAndMakeOurRowsAcceptTHeader() {
    Rows rows = Rows.standard();
    assertThat(rows.expandClients(List.of("all")))
        .doesNotContain("tsocket-header")
        .doesNotContainAnyElementsOf(OUR_HEADER_KINDS);
    ServerRow netty = rows.server("netty/worker");
    for (String name : concat("tsocket-header", OUR_HEADER_KINDS)) {
      ClientKindRow kind = rows.client(name);
      assertThat(kind).as(name).isNotNull();
      assertThat(kind.wireKind()).as(name).isEqualTo(WireKind.HEADER);
      assertThat(MatrixRunner.wireKinds(netty, List.of(rows.client("tsocket"), kind)))
          .as(name)
          .containsExactly(WireKind.FRAMED, WireKind.HEADER);
      assertThat(ClientKindRow.mismatch(rows.server("thrift-threadpool"), kind))
          .isEqualTo("thrift-threadpool serves [framed] peers only; " + name + " speaks header");
    }
  }

  private static List<String> concat(String first, List<String> rest) {
    return java.util.stream.Stream.concat(java.util.stream.Stream.of(first), rest.stream())
        .toList();
  }

  @Test
  void matrixCallsOurRowsOverTHeaderWithTheStockSocketAndSkipsStockRows() throws Exception {
    int status =
        run(
            "matrix",
            "--servers",
            "netty/same-thread,grizzly/worker,thrift-threadpool",
            "--clients",
            "tsocket-header",
            "--sizes",
            "300",
            "--protocols",
            "compact",
            "--connections",
            "2",
            "--warmup",
            "100ms",
            "--duration",
            "300ms",
            "--workers",
            "4",
            "--io-threads",
            "1",
            "--out",
            dir.toString());

    assertThat(status).as(err.toString()).isZero();
    String table = out.toString();
    assertThat(table)
        .contains("| netty/same-thread | tsocket-header | 300 | compact | 2 |")
        .contains("| grizzly/worker | tsocket-header | 300 | compact | 2 |")
        .contains("thrift-threadpool serves [framed] peers only; tsocket-header speaks header");
    List<String> csv = Files.readAllLines(dir.resolve("results.csv"), StandardCharsets.UTF_8);
    assertThat(csv).hasSize(3);
    for (String line : csv.subList(1, csv.size())) {
      String[] f = line.split(",", -1);
      assertThat(Double.parseDouble(f[5])).as(line).isPositive();
      assertThat(f[9]).as("errors of " + line).isEqualTo("0");
    }
  }

  @Test
  void efficiencyRunsSeq1FramedAndTHeaderSideBySide() throws Exception {
    int status =
        run(
            "efficiency",
            "--servers",
            "netty/same-thread",
            "--scenarios",
            "seq-1",
            "--wire",
            "framed,header",
            "--rounds",
            "1",
            "--warmup",
            "200ms",
            "--warmup-calls",
            "0",
            "--duration",
            "500ms",
            "--no-pin",
            "--out",
            dir.toString());

    assertThat(status).as(err.toString()).isZero();
    assertThat(err.toString())
        .contains("netty/same-thread seq-1 (tsocket x1): ")
        .contains("netty/same-thread seq-1-header (tsocket-header x1): ")
        .doesNotContain("skipped");
    List<String> csv = Files.readAllLines(dir.resolve("results.csv"), StandardCharsets.UTF_8);
    assertThat(csv)
        .anySatisfy(l -> assertThat(l).startsWith("netty/same-thread,seq-1,tsocket,1,1,"))
        .anySatisfy(
            l -> assertThat(l).startsWith("netty/same-thread,seq-1-header,tsocket-header,1,1,"));
  }

  @Test
  void efficiencyRunsSeq1FramedAndSaslSideBySide() throws Exception {
    int status =
        run(
            "efficiency",
            "--servers",
            "grizzly/same-thread",
            "--scenarios",
            "seq-1",
            "--wire",
            "framed,sasl",
            "--rounds",
            "1",
            "--warmup",
            "200ms",
            "--warmup-calls",
            "0",
            "--duration",
            "500ms",
            "--no-pin",
            "--out",
            dir.toString());

    assertThat(status).as(err.toString()).isZero();
    assertThat(err.toString())
        .contains("grizzly/same-thread seq-1-sasl (tsocket-sasl x1): ")
        .doesNotContain("skipped");
    List<String> csv = Files.readAllLines(dir.resolve("results.csv"), StandardCharsets.UTF_8);
    int errors = List.of(csv.get(0).split(",", -1)).indexOf("errors");
    assertThat(csv)
        .anySatisfy(
            l -> {
              assertThat(l).startsWith("grizzly/same-thread,seq-1-sasl,tsocket-sasl,1,1,");
              assertThat(l.split(",", -1)[errors]).as("errors of " + l).isEqualTo("0");
            });
  }

  @Test
  void efficiencyRefusesAWireWithoutAScenarioForIt() {
    assertThatThrownBy(() -> EfficiencyScenario.resolve(List.of("http-40"), List.of("header")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "wire: header with scenarios [http-40] (expected: one of [tsocket-40, async-8x32,"
                + " seq-1], the scenarios that have THeader and SASL twins)");
    assertThatThrownBy(() -> EfficiencyScenario.resolve(List.of("seq-1"), List.of("http")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("wire: http (expected: framed, header, sasl, comma-separated)");
    assertThat(EfficiencyScenario.resolve(List.of("seq-1"), List.of("sasl")))
        .extracting(EfficiencyScenario::name, EfficiencyScenario::client)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("seq-1-sasl", "tsocket-sasl"));
    assertThat(EfficiencyScenario.resolve(List.of("all"), List.of("header")))
        .extracting(EfficiencyScenario::name, EfficiencyScenario::client)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("tsocket-40-header", "tsocket-header"),
            org.assertj.core.groups.Tuple.tuple("async-8x32-header", "netty-async-header"),
            org.assertj.core.groups.Tuple.tuple("seq-1-header", "tsocket-header"));
  }

  @Test
  void theReportComparesEachTHeaderTwinWithItsFramedScenarioOnTheSameRow() {
    EfficiencyScenario seq = EfficiencyScenario.resolve(List.of("seq-1"), List.of("framed")).get(0);
    EfficiencyScenario twin = seq.over(WireKind.HEADER);
    EfficiencyResult framed =
        new EfficiencyResult("netty/worker", seq, List.of(round(200, 50)), null);
    EfficiencyResult header =
        new EfficiencyResult("netty/worker", twin, List.of(round(300, 60)), null);
    EfficiencyResult otherRow =
        new EfficiencyResult("grizzly/worker", twin, List.of(round(300, 60)), null);
    List<EfficiencyResult> all = List.of(framed, header, otherRow);

    assertThat(EfficiencyGoals.framedTwin(header, all)).isSameAs(framed);
    assertThat(EfficiencyGoals.framedTwin(otherRow, all)).as("no framed cell on its row").isNull();
    assertThat(EfficiencyGoals.framedTwin(framed, all)).as("a framed cell").isNull();
    assertThat(EfficiencyGoals.lines(all))
        .contains(
            "- Server CPU per call over THeader vs framed, seq-1-header, netty/worker: 1.50x;"
                + " median latency 1.20x")
        .doesNotContain("grizzly/worker");
  }

  /** A round of 10,000 calls in 2 s with the given server CPU (ms) and p50 (us). */
  private static EfficiencyResult.Sample round(long serverCpuMs, long p50) {
    return new EfficiencyResult.Sample(
        10_000, 2.0, serverCpuMs * 1_000_000, 300_000_000, 0, p50, p50 * 3, 0, 0, 0.01, Double.NaN);
  }

  /**
   * The library's THeader kinds under load against our rows. Needs {@code
   * ClientOptions.wireKind(HEADER)} accepted (the THeader client).
   */
  @Test
  void ourHeaderKindsCallOurRowsWithExactlyTheCallsAsked() throws Exception {
    long calls = 200;
    MatrixPlan plan =
        new MatrixPlan(
            "test",
            List.of("netty/worker", "grizzly/same-thread"),
            OUR_HEADER_KINDS,
            List.of(
                new MatrixPlan.Grid(List.of(Workload.echo(300)), List.of("compact"), List.of(2))),
            2,
            0,
            Duration.ofMillis(100),
            Duration.ofSeconds(30),
            calls,
            Duration.ofSeconds(10),
            4,
            1,
            false,
            null);
    MatrixRunner runner = new MatrixRunner(Rows.standard(), plan);
    List<CellResult> results = runner.run(ReducedMatrixTest.quiet(runner.cells().size()));

    assertThat(results).hasSize(2 * OUR_HEADER_KINDS.size());
    for (CellResult r : results) {
      String cell = r.server() + " x " + r.client();
      assertThat(r.skipped()).as(cell + " skipped").isNull();
      assertThat(r.calls()).as(cell + " calls measured").isEqualTo(calls);
      assertThat(r.errors()).as(cell + " errors").isZero();
      assertThat(r.checkFailures()).as(cell + " payload check failures").isZero();
    }
  }
}
