package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.NotRun;
import io.thriftnio.core.util.internal.CallTimeoutException;
import io.thriftnio.netty.NettyThriftServer;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TApplicationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * The {@code overload} command's arguments, handler, outcome classes and report, without running
 * any load (no timing here).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OverloadCommandTest {

  private static OverloadCommand.Settings parse(String... args) {
    OverloadCommand c = new OverloadCommand();
    new CommandLine(c).parseArgs(args);
    return c.settings();
  }

  @Test
  void defaultsRunEveryStrategyOnBothTransportsAndTwoStockRowsWithTwoHandlers() {
    OverloadCommand.Settings s = parse();

    assertThat(s.rows().stream().map(OverloadCommand.RowSpec::label))
        .containsExactly(
            "netty/same-thread",
            "netty/worker",
            "grizzly/same-thread",
            "grizzly/worker",
            "grizzly/leader-follower",
            "thrift-threadpool",
            "thrift-threaded-selector");
    assertThat(s.handlers().stream().map(OverloadHandler.Spec::label))
        .containsExactly("cpu:100us", "sleep:5ms");
    assertThat(s.levels()).containsExactly(0.5, 1.0, 1.5, 2.0, 3.0);
    assertThat(s.header()).isTrue();
    assertThat(s.connections()).isEqualTo(64);
    assertThat(s.deadlineFor(s.handlers().get(0))).isEqualTo(Duration.ofMillis(10));
    assertThat(s.deadlineFor(s.handlers().get(1))).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void quickPresetShortensEveryPhaseAndAnExplicitOptionWins() {
    OverloadCommand.Settings quick = parse("--preset", "quick");
    assertThat(quick.duration()).isEqualTo(Duration.ofSeconds(2));
    assertThat(quick.capacityDuration()).isEqualTo(Duration.ofSeconds(1));
    assertThat(quick.capacityWarmup()).isEqualTo(Duration.ofSeconds(5));

    OverloadCommand.Settings mine = parse("--preset", "quick", "--duration", "500ms");
    assertThat(mine.duration()).isEqualTo(Duration.ofMillis(500));
  }

  @Test
  void theCapacityStepsDoubleTheCallsInFlightWhileTheRateGrowsByFivePercent() {
    assertThat(OverloadLoad.nextStep(0, 1_000, 8, 256)).as("the first step").isEqualTo(16);
    assertThat(OverloadLoad.nextStep(1_000, 1_050, 16, 256)).isEqualTo(32);
    assertThat(OverloadLoad.nextStep(1_000, 1_049, 16, 256)).as("grew under 5%").isZero();
    assertThat(OverloadLoad.nextStep(1_000, 800, 16, 256))
        .as("a bound shed the deeper loop")
        .isZero();
    assertThat(OverloadLoad.nextStep(1_000, 2_000, 160, 256)).as("up to the most").isEqualTo(256);
    assertThat(OverloadLoad.nextStep(1_000, 2_000, 256, 256)).as("at the most").isZero();
  }

  @Test
  void aRowCarriesServerOptionsAndTheDeadlineOptionReplacesTheDefaults() {
    OverloadCommand.Settings s =
        parse(
            "--servers",
            "netty/worker,netty/worker?workerQueueCapacity=64&workerStartTimeout=5ms",
            "--handlers",
            "sleep:2ms",
            "--deadline",
            "30ms",
            "--server-option",
            "handlerTimeout=1s",
            "--wire",
            "framed");

    assertThat(s.rows()).hasSize(2);
    assertThat(s.rows().get(1).name()).isEqualTo("netty/worker");
    assertThat(s.rows().get(1).options())
        .containsEntry("workerQueueCapacity", "64")
        .containsEntry("workerStartTimeout", "5ms");
    assertThat(s.rows().get(1).label())
        .isEqualTo("netty/worker?workerQueueCapacity=64&workerStartTimeout=5ms");
    assertThat(s.serverOptions()).isEqualTo(Map.of("handlerTimeout", "1s"));
    assertThat(s.deadlineFor(s.handlers().get(0))).isEqualTo(Duration.ofMillis(30));
    assertThat(s.header()).isFalse();
  }

  @Test
  void rowsWithOptionsRunAfterTheRowsTheyTakeTheirCapacityFrom() {
    OverloadCommand.Settings s =
        parse("--servers", "netty/worker?adaptiveLimit=200,netty/worker,grizzly/worker");

    assertThat(OverloadCommand.runOrder(s.rows()).stream().map(OverloadCommand.RowSpec::label))
        .containsExactly("netty/worker", "grizzly/worker", "netty/worker?adaptiveLimit=200");
  }

  @Test
  void badArgumentsAreUsageErrorsThatSayWhatWasExpected() {
    assertThat(usageError("--handlers", "echo")).contains("handlers: echo (expected: cpu:D");
    assertThat(usageError("--handlers", "spin:5ms")).contains("handler: spin:5ms (expected:");
    assertThat(usageError("--levels", "0")).contains("levels: 0.0 (expected: > 0");
    assertThat(usageError("--wire", "http")).contains("wire: http (expected: header or framed)");
    assertThat(usageError("--servers", "nope/row")).contains("servers: nope/row (expected:");
    assertThat(usageError("--servers", "netty/worker?depth")).contains("expected: NAME=VALUE");
    assertThat(usageError("--preset", "full")).contains("preset: full (expected: quick)");
  }

  private static String usageError(String... args) {
    StringWriter err = new StringWriter();
    List<String> all = new ArrayList<>(List.of("overload", "--no-pin"));
    all.addAll(List.of(args));
    int status =
        BenchMain.execute(
            all.toArray(new String[0]), new PrintWriter(new StringWriter()), new PrintWriter(err));
    assertThat(status).as(err.toString()).isEqualTo(2);
    return err.toString();
  }

  @Test
  void handlerSpecsReadAndPrintBack() {
    assertThat(OverloadHandler.Spec.parse("cpu:100us"))
        .isEqualTo(new OverloadHandler.Spec(OverloadHandler.Kind.CPU, 100));
    assertThat(OverloadHandler.Spec.parse("SLEEP:5ms"))
        .isEqualTo(new OverloadHandler.Spec(OverloadHandler.Kind.SLEEP, 5000));
    assertThat(OverloadHandler.Spec.parse("sleep:1.5ms").label()).isEqualTo("sleep:1500us");
    assertThat(OverloadHandler.Spec.parse("echo").label()).isEqualTo("echo");
    assertThatThrownBy(() -> OverloadHandler.Spec.parse("cpu:0us"))
        .hasMessage("handler: cpu:0us (expected: a duration of 1us..10s)");
  }

  @Test
  void theHandlerCountsARunThatStartsAfterThePayloadsDeadline() {
    OverloadHandler h = new OverloadHandler(OverloadHandler.Spec.parse("sleep:1us"));

    h.echo(OverloadLoad.payload(Long.MAX_VALUE, 1));
    h.echo(OverloadLoad.payload(OverloadHandler.wallMicros() - 1_000_000, 2));
    h.echo(java.nio.ByteBuffer.allocate(4)); // no deadline

    assertThat(h.runs()).isEqualTo(3);
    assertThat(h.lateRuns()).isEqualTo(1);
  }

  @Test
  void theControlChannelAnswersTheHandlerCounts() throws Exception {
    OverloadHandler h = new OverloadHandler(OverloadHandler.Spec.parse("sleep:1us"));
    h.echo(OverloadLoad.payload(0, 1));
    RunningServer stock =
        new RunningServer() {
          @Override
          public InetSocketAddress address() {
            return new InetSocketAddress("127.0.0.1", 1);
          }

          @Override
          public void close() {}
        };
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ServeControl.answer(
        stock,
        h,
        new BufferedReader(new StringReader("handler\n")),
        new PrintStream(bytes, true, StandardCharsets.UTF_8));

    assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo("handler runs=1 late=1\nend\n");
  }

  @Test
  void failuresAreCountedByWhatTheServerOrTheClientSaid() {
    assertThat(OverloadLoad.outcome(new CompletionException(NotRun.exception("queue full"))))
        .isEqualTo(OverloadLoad.Failure.NOT_RUN);
    assertThat(OverloadLoad.outcome(new CallTimeoutException("echo within 10 ms", false)))
        .isEqualTo(OverloadLoad.Failure.TIMED_OUT);
    assertThat(
            OverloadLoad.outcome(
                new TApplicationException(
                    TApplicationException.INTERNAL_ERROR,
                    "echo not started: the caller's deadline (client_timeout 10 ms) passed 2 ms"
                        + " before its handler would start")))
        .isEqualTo(OverloadLoad.Failure.SHED_AT_DEADLINE);
    assertThat(OverloadLoad.outcome(new IllegalStateException("boom")))
        .isEqualTo(OverloadLoad.Failure.OTHER);
  }

  @Test
  void serverOptionsCallTheBuildersSetterOrSayWhichExist() {
    ServerOptions.apply(
        NettyThriftServer.builder(),
        ServerOptions.parse(List.of("workerQueueCapacity=64", "workerStartTimeout=5ms")));

    assertThatThrownBy(
            () ->
                ServerOptions.apply(
                    NettyThriftServer.builder(), ServerOptions.parse(List.of("nope=1"))))
        .hasMessageStartingWith("server-option: nope (expected: a setter of the server builder:")
        .hasMessageContaining("workerQueueCapacity");
    assertThatThrownBy(
            () ->
                ServerOptions.apply(
                    NettyThriftServer.builder(),
                    ServerOptions.parse(List.of("workerQueueCapacity=many"))))
        .hasMessageStartingWith("server-option: workerQueueCapacity=many (expected: int");
    assertThatThrownBy(() -> ServerOptions.parse(List.of("=3")))
        .hasMessage("server-option: '=3' (expected: NAME=VALUE, e.g. workerQueueCapacity=256)");
  }

  private static OverloadResult.Level level(double factor, double goodput, long p99, long late) {
    return new OverloadResult.Level(
        factor,
        1000 * factor,
        1000 * factor,
        50,
        90,
        goodput,
        3000,
        2900,
        0,
        400,
        p99,
        0,
        0,
        0,
        0,
        3000,
        late);
  }

  @Test
  void gracefulAtTwiceCapacityNeedsAllThreeTargets() {
    OverloadResult graceful = row("netty/worker", "header", level(2, 900, 2900, 0), 0.01);
    OverloadResult collapsed = row("thrift-threadpool", "framed", level(2, 100, 9000, 40), 0.01);
    OverloadResult skipped =
        new OverloadResult(
            "x/y", "cpu:100us", "framed", 10_000, 0, List.of(), "cannot start x/y", -1);

    assertThat(OverloadReport.graceful(graceful).met()).isTrue();
    OverloadReport.Graceful g = OverloadReport.graceful(collapsed);
    assertThat(g.met()).isFalse();
    assertThat(g.goodput()).isEqualTo("0.11 not met");
    assertThat(g.p99()).isEqualTo("9.00x (9,000 / 1,000 us) not met");
    assertThat(g.late()).isEqualTo("40 not met");

    List<OverloadResult> all = List.of(graceful, collapsed, skipped);
    String table = OverloadReport.graceful(all);
    assertThat(table).contains("| cpu:100us | netty/worker | 0.95 met |").contains("| met |");
    assertThat(table).contains("| not met |").doesNotContain("x/y");
    String levels = OverloadReport.levels(all);
    assertThat(levels).contains("| cpu:100us | netty/worker | 1,000 | 2x | 2,000 |");
    assertThat(levels).contains("skipped: cannot start x/y");
    assertThat(OverloadReport.csv(all).lines()).hasSize(1 + 3 + 3 + 1);
    assertThat(OverloadReport.csv(all).lines().map(l -> l.split(",", -1).length))
        .as("every line has the header's columns")
        .containsOnly(24);
    assertThat(OverloadReport.banner(all)).isEmpty();
  }

  @Test
  void aRowIsNotJudgedWhereTheGeneratorFellBehindAndABusyRowIsMarked() {
    OverloadResult.Level lagging =
        new OverloadResult.Level(
            2, 2000, 2000, 5_000, 9_000, 100, 4000, 200, 0, -1, -1, 0, 0, 3800, 0, 4000, 3800);
    OverloadResult r = row("thrift-threadpool", "framed", lagging, 0.5);

    OverloadReport.Graceful g = OverloadReport.graceful(r);
    assertThat(g.p99()).isEqualTo("- (no call answered at 2x or 0.5x) not met");
    assertThat(g.verdict())
        .isEqualTo(
            "not judged: the load generator fell behind (send lag p99 5,000 us at 2x, above a"
                + " quarter of the deadline)");
    assertThat(OverloadReport.banner(List.of(r)))
        .startsWith("> BUSY MACHINE: 1 of 1 rows ran while other processes took more than 10%");
    assertThat(OverloadReport.levels(List.of(r)))
        .contains("| cpu:100us | thrift-threadpool * | 1,000 | 2x |")
        .contains("| 100 | 0.11 | - | - |");
  }

  @Test
  void aRowIsNotJudgedWhereItAnsweredMoreAt2xThanItsMeasuredCapacity() {
    OverloadResult low = row("grizzly/worker", "header", level(2, 1600, 2000, 0), 0.01);
    OverloadResult measured = row("grizzly/worker", "header", level(2, 1100, 2000, 0), 0.01);

    OverloadReport.Graceful g = OverloadReport.graceful(low);
    assertThat(g.goodput()).isEqualTo("1.68 met");
    assertThat(g.verdict())
        .isEqualTo(
            "not judged: the capacity was measured low (2x answered 1,600 calls/s in time,"
                + " 1.60x the capacity of 1,000)");
    assertThat(OverloadReport.graceful(measured).verdict()).isEqualTo("met");
  }

  /**
   * A {@code cpu:100us} row of capacity 1,000 calls/s and a 10 ms deadline, answered in time at
   * 0.5x (500 calls/s, p99 1 ms) and 1x (950 calls/s, p99 2 ms), with {@code two} as its 2x level.
   */
  private static OverloadResult row(
      String server, String wire, OverloadResult.Level two, double otherLoad) {
    return new OverloadResult(
        server,
        "cpu:100us",
        wire,
        10_000,
        1000,
        List.of(level(0.5, 500, 1000, 0), level(1, 950, 2000, 0), two),
        null,
        otherLoad);
  }

  @Test
  void aCpuHandlerComputesForItsTimeOfCpu() {
    java.lang.management.ThreadMXBean threads =
        java.lang.management.ManagementFactory.getThreadMXBean();
    long before = threads.getCurrentThreadCpuTime();
    OverloadHandler.compute(2_000, 7);
    assertThat(threads.getCurrentThreadCpuTime() - before)
        .as("this thread's CPU time, ns")
        .isGreaterThanOrEqualTo(2_000_000);
  }
}
