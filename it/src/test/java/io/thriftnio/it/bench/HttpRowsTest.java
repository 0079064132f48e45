package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.WireKind;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.TradeReport;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.protocol.TJSONProtocol;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP rows of the bench: {@code thrift-servlet} (stock {@code TServlet} in Jetty), the
 * library's rows over HTTP, and the {@code thttpclient} kind in {@code matrix} and {@code
 * efficiency}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HttpRowsTest {

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return BenchMain.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  private static ServerSpec spec(EnumSet<WireKind> transports, String path) {
    return new ServerSpec(
        MatrixRunner.LOOPBACK, 0, "json", 2, 1, false, 16, null, false, transports, path);
  }

  private static TradeReport lastSale(InetSocketAddress a, String path, String symbol)
      throws Exception {
    try (TTransport http = StockRows.openHttpClient(a, path, Duration.ofSeconds(10))) {
      return new BenchService.Client(new TJSONProtocol(http)).get_last_sale(symbol);
    }
  }

  @Test
  void theServletRowAnswersTHttpClientAtItsPathAndNowhereElse() throws Exception {
    ServerRow row = Rows.standard().server("thrift-servlet");
    try (RunningServer server = row.start(spec(EnumSet.of(WireKind.HTTP), "/"))) {
      assertThat(lastSale(server.address(), "/", "ROOT"))
          .isEqualTo(new TradeReport("ROOT", 25.50, 100, 1));
      assertThatThrownBy(() -> lastSale(server.address(), "/other", "X"))
          .isInstanceOf(TTransportException.class)
          .hasMessageContaining("404");
    }
    try (RunningServer server = row.start(spec(EnumSet.of(WireKind.HTTP), "/thrift"))) {
      assertThat(lastSale(server.address(), "/thrift", "PATH").getSymbol()).isEqualTo("PATH");
      assertThatThrownBy(() -> lastSale(server.address(), "/", "X"))
          .isInstanceOf(TTransportException.class)
          .hasMessageContaining("404");
    }
  }

  @Test
  void theServletRowRefusesFramedPeers() {
    assertThatThrownBy(
            () ->
                Rows.standard()
                    .server("thrift-servlet")
                    .start(spec(EnumSet.of(WireKind.FRAMED), "/")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "thrift-servlet serves http peers only: transports [FRAMED] (expected: http;"
                + " TServlet in Jetty answers HTTP alone)");
  }

  @Test
  void serveRunsTheServletRowOutOfProcessOverHttpByDefault() throws Exception {
    try (ServeProcess serve =
        ServeProcess.start(
            List.of(),
            List.of(
                "--server",
                "thrift-servlet",
                "--protocol",
                "json",
                "--workers",
                "4",
                "--io-threads",
                "1",
                "--http-path",
                "/thrift"))) {
      assertThat(lastSale(serve.address(), "/thrift", "SERVE").getSymbol()).isEqualTo("SERVE");
    }
  }

  @Test
  void serveRefusesTheServletRowForFramedPeers() {
    int code =
        run("serve", "--server", "thrift-servlet", "--port", "0", "--transports", "framed,http");
    assertThat(code).isEqualTo(1);
    assertThat(err.toString())
        .contains("serve: cannot start thrift-servlet")
        .contains("thrift-servlet serves http peers only: transports [FRAMED, HTTP]");
  }

  @Test
  void stockAndAllLeaveTheServletRowOut() {
    Rows rows = Rows.standard();
    assertThat(rows.expandServers(List.of("stock"))).doesNotContain("thrift-servlet");
    assertThat(rows.expandServers(List.of("all"))).doesNotContain("thrift-servlet");
    assertThat(rows.expandServers(List.of("thrift-servlet"))).containsExactly("thrift-servlet");
    assertThat(rows.expandClients(List.of("all"))).contains("thttpclient");
  }

  @Test
  void matrixCallsEveryRowThatServesHttpAndSkipsTheOthersWithTheReason() throws Exception {
    int status =
        run(
            "matrix",
            "--servers",
            "thrift-servlet,netty/worker,grizzly/worker,thrift-hsha",
            "--clients",
            "thttpclient,tsocket",
            "--sizes",
            "300",
            "--protocols",
            "json",
            "--connections",
            "2",
            "--warmup",
            "100ms",
            "--duration",
            "500ms",
            "--workers",
            "4",
            "--io-threads",
            "1",
            "--out",
            dir.toString());

    assertThat(status).as(err.toString()).isZero();
    String table = out.toString();
    for (String ran :
        List.of(
            "| thrift-servlet | thttpclient | 300 | json | 2 |",
            "| netty/worker | thttpclient | 300 | json | 2 |",
            "| netty/worker | tsocket | 300 | json | 2 |",
            "| grizzly/worker | thttpclient | 300 | json | 2 |",
            "| grizzly/worker | tsocket | 300 | json | 2 |",
            "| thrift-hsha | tsocket | 300 | json | 2 |")) {
      assertThat(table).as(err.toString()).contains(ran);
    }
    assertThat(table)
        .contains("thrift-servlet serves [http] peers only; tsocket speaks framed")
        .contains("thrift-hsha serves [framed] peers only; thttpclient speaks http");
    List<String> csv = Files.readAllLines(dir.resolve("results.csv"), StandardCharsets.UTF_8);
    assertThat(csv).hasSize(7);
    for (String line : csv.subList(1, csv.size())) {
      String[] f = line.split(",", -1);
      assertThat(Double.parseDouble(f[5])).as(line).isPositive();
      assertThat(f[9]).as(line).isEqualTo("0");
    }
  }

  /** The library's HTTP client kinds, as {@code matrix --clients} names them. */
  private static final List<String> OUR_HTTP_KINDS =
      List.of("netty-sync-http", "netty-async-http", "grizzly-sync-http", "grizzly-async-http");

  @Test
  void ourHttpKindsCallOurRowAndTheServletWithExactlyTheCallsAskedAndSkipFramedOnlyRows()
      throws Exception {
    long calls = 300;
    MatrixPlan plan =
        new MatrixPlan(
            "test",
            List.of("netty/worker", "thrift-servlet", "thrift-hsha"),
            OUR_HTTP_KINDS,
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
    Rows rows = Rows.standard();
    MatrixRunner runner = new MatrixRunner(rows, plan);
    List<CellResult> results = runner.run(ReducedMatrixTest.quiet(runner.cells().size()));

    assertThat(results).hasSize(3 * OUR_HTTP_KINDS.size());
    for (CellResult r : results) {
      String cell = r.server() + " x " + r.client();
      if (r.server().equals("thrift-hsha")) {
        assertThat(r.skipped())
            .as(cell)
            .isEqualTo("thrift-hsha serves [framed] peers only; " + r.client() + " speaks http");
        continue;
      }
      assertThat(r.skipped()).as(cell + " skipped").isNull();
      assertThat(r.calls()).as(cell + " calls measured").isEqualTo(calls);
      assertThat(r.errors()).as(cell + " errors").isZero();
      assertThat(r.checkFailures()).as(cell + " payload check failures").isZero();
    }
  }

  @Test
  void againstATlsRowOurHttpKindsSpeakTlsAndThttpclientIsSkippedWithTheReason() throws Exception {
    long calls = 100;
    MatrixPlan plan =
        new MatrixPlan(
            "test",
            List.of("netty-tls/worker"),
            List.of("thttpclient", "netty-sync-http", "grizzly-async-http"),
            List.of(
                new MatrixPlan.Grid(List.of(Workload.echo(300)), List.of("compact"), List.of(1))),
            1,
            0,
            Duration.ZERO,
            Duration.ofSeconds(30),
            calls,
            Duration.ofSeconds(10),
            4,
            1,
            false,
            null);
    MatrixRunner runner = new MatrixRunner(Rows.standard(), plan);
    List<CellResult> results = runner.run(ReducedMatrixTest.quiet(runner.cells().size()));

    assertThat(results).hasSize(3);
    assertThat(results.get(0).skipped())
        .isEqualTo("thttpclient speaks plain HTTP only (netty-tls/worker serves TLS)");
    for (CellResult r : results.subList(1, 3)) {
      assertThat(r.skipped()).as(r.client()).isNull();
      assertThat(r.calls()).as(r.client()).isEqualTo(calls);
      assertThat(r.errors()).as(r.client()).isZero();
    }
  }

  @Test
  void ourHttpKindsSpeakHttpAreInAllAndMakeOurRowsAcceptIt() {
    Rows rows = Rows.standard();
    assertThat(rows.expandClients(List.of("all"))).containsAll(OUR_HTTP_KINDS);
    ServerRow grizzly = rows.server("grizzly/worker");
    for (String name : OUR_HTTP_KINDS) {
      ClientKindRow kind = rows.client(name);
      assertThat(kind.wireKind()).as(name).isEqualTo(WireKind.HTTP);
      assertThat(MatrixRunner.wireKinds(grizzly, List.of(rows.client("tsocket"), kind)))
          .as(name)
          .containsExactly(WireKind.FRAMED, WireKind.HTTP);
    }
    for (String framed : List.of("netty-sync", "netty-async", "grizzly-sync", "grizzly-async")) {
      assertThat(rows.client(framed).wireKind()).as(framed).isEqualTo(WireKind.FRAMED);
    }
  }

  @Test
  void libraryRowsAcceptHttpOnlyWhenTheRunHasAnHttpClient() {
    ServerRow netty = Rows.standard().server("netty/worker");
    ClientKindRow tsocket = Rows.standard().client("tsocket");
    ClientKindRow http = Rows.standard().client("thttpclient");
    assertThat(MatrixRunner.wireKinds(netty, List.of(tsocket))).containsExactly(WireKind.FRAMED);
    assertThat(MatrixRunner.wireKinds(netty, List.of(tsocket, http)))
        .containsExactly(WireKind.FRAMED, WireKind.HTTP);
    assertThat(MatrixRunner.wireKinds(Rows.standard().server("thrift-servlet"), List.of(tsocket)))
        .containsExactly(WireKind.HTTP);
    assertThat(MatrixRunner.wireKinds(Rows.standard().server("thrift-hsha"), List.of(http)))
        .containsExactly(WireKind.FRAMED);
  }

  @Test
  void efficiencyRunsHttp40AgainstTheServletAndOurRowInTheirOwnProcesses() throws Exception {
    int status =
        run(
            "efficiency",
            "--servers",
            "thrift-servlet,netty/worker,thrift-threadpool",
            "--scenarios",
            "http-40",
            "--rounds",
            "1",
            "--warmup",
            "0s",
            "--warmup-calls",
            "0",
            "--duration",
            "500ms",
            "--protocol",
            "json",
            "--workers",
            "8",
            "--no-pin",
            "--out",
            dir.toString());

    assertThat(status).as(err.toString()).isZero();
    assertThat(err.toString())
        .contains("thrift-servlet http-40 (thttpclient x40): ")
        .contains("netty/worker http-40 (thttpclient x40): ")
        .contains(
            "thrift-threadpool http-40 (thttpclient x40): skipped: thrift-threadpool serves"
                + " [framed] peers only; thttpclient speaks http");
    List<String> csv = Files.readAllLines(dir.resolve("results.csv"), StandardCharsets.UTF_8);
    assertThat(csv.get(1)).startsWith("thrift-servlet,http-40,thttpclient,40,1,");
    assertThat(csv.get(2)).startsWith("netty/worker,http-40,thttpclient,40,1,");
  }
}
