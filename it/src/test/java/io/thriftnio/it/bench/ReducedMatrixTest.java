package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.epoll.Epoll;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The reduced matrix of issue 6, in-process: every server row of this build x every client kind,
 * 300 B, 2 connections, short phases. Every cell must run with zero errors and intact payloads; the
 * numbers are printed, not asserted.
 *
 * <p>A cell's measured phase ends after {@link #MAX_CALLS} calls or {@link #DURATION}, whichever
 * comes first: the checks need calls with intact payloads, not a rate, and a fast cell that ran for
 * the whole {@link #DURATION} made 10,000-40,000 calls where a few thousand say the same.
 */
class ReducedMatrixTest {

  private static final Duration WARMUP = Duration.ofMillis(150);
  private static final Duration DURATION = Duration.ofMillis(500);

  /** Measured calls per cell at most: about what the slowest cells make in {@link #DURATION}. */
  private static final long MAX_CALLS = 2_000;

  @Test
  @Timeout(value = 6, unit = TimeUnit.MINUTES)
  void everyRowAndKindAnswersWithIntactPayloads() throws Exception {
    Rows rows = Rows.standard();
    List<String> servers = rows.serverNames();
    List<String> clients = new ArrayList<>(rows.clientNames());
    clients.add("per-call-connection");
    System.out.println(
        "reduced matrix: servers "
            + servers
            + ", clients "
            + clients
            + (rows.missingNames().isEmpty()
                ? ""
                : "; not in this build: " + rows.missingNames().keySet()));

    List<String> multi = servers.stream().filter(s -> !s.equals("thrift-simple")).toList();
    List<CellResult> results = new ArrayList<>(run(rows, multi, clients, 2));
    if (servers.contains("thrift-simple")) {
      // TSimpleServer serves one connection at a time: its cells run with one.
      results.addAll(run(rows, List.of("thrift-simple"), clients, 1));
    }
    System.out.print(Reports.markdownTable(results));
    System.out.print(Reports.skippedList(results));

    assertThat(results).hasSize(servers.size() * clients.size());
    for (CellResult r : results) {
      String cell = r.server() + " x " + r.client();
      // thttpclient calls the rows that serve HTTP; the framed-only rows skip it, saying why.
      String mismatch = ClientKindRow.mismatch(rows.server(r.server()), rows.client(r.client()));
      if (mismatch != null) {
        assertThat(r.skipped()).as(cell + " skipped").isEqualTo(mismatch);
        continue;
      }
      assertThat(r.skipped()).as(cell + " skipped").isNull();
      assertThat(r.errors()).as(cell + " errors").isZero();
      assertThat(r.checkFailures()).as(cell + " payload check failures").isZero();
      assertThat(r.calls()).as(cell + " calls measured").isPositive();
    }
  }

  /**
   * The rows pinned to one Netty transport, named explicitly: each serves with zero errors, or, for
   * a native transport that cannot load here, is skipped with the builder's reason. Epoll must run
   * wherever it loads, which is every Linux x86_64 machine this build runs on.
   */
  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void theRowsPinnedToATransportServeOrSaySkipWhy() throws Exception {
    List<String> servers =
        List.of(
            "netty-nio/same-thread",
            "netty-nio/worker",
            "netty-epoll/same-thread",
            "netty-epoll/worker",
            "netty-iouring/same-thread",
            "netty-iouring/worker");
    Rows rows = Rows.standard();
    assertThat(rows.expandServers(List.of("all"))).doesNotContainAnyElementsOf(servers);
    List<CellResult> results = run(rows, servers, List.of("tsocket"), 2);
    System.out.print(Reports.markdownTable(results));
    System.out.print(Reports.skippedList(results));
    assertThat(results).hasSize(servers.size());
    for (CellResult r : results) {
      boolean mayBeSkipped =
          r.server().startsWith("netty-iouring/")
              || r.server().startsWith("netty-epoll/") && !Epoll.isAvailable();
      if (r.skipped() != null && mayBeSkipped) {
        assertThat(r.skipped()).as(r.server()).contains("is not available");
        continue;
      }
      assertThat(r.skipped()).as(r.server() + " skipped").isNull();
      assertThat(r.errors()).as(r.server() + " errors").isZero();
      assertThat(r.checkFailures()).as(r.server() + " payload check failures").isZero();
      assertThat(r.calls()).as(r.server() + " calls measured").isPositive();
    }
  }

  @Test
  @Timeout(value = 1, unit = TimeUnit.MINUTES)
  void thriftSimpleWithManyConnectionsIsSkippedWithItsReason() throws Exception {
    List<CellResult> results =
        run(Rows.standard(), List.of("thrift-simple"), List.of("tsocket"), 2);
    assertThat(results)
        .singleElement()
        .satisfies(r -> assertThat(r.skipped()).contains("one connection at a time"));
  }

  @Test
  @Timeout(value = 1, unit = TimeUnit.MINUTES)
  void aRowMissingFromTheBuildIsSkippedWithTheReason() throws Exception {
    Rows rows = new Rows();
    new StockRows().register(rows);
    MatrixPlan plan = plan(List.of("netty/worker"), List.of("tsocket"), 1);
    List<CellResult> results = new MatrixRunner(rows, plan).run(quiet(1));
    assertThat(results)
        .singleElement()
        .satisfies(r -> assertThat(r.skipped()).contains("netty/worker"));
  }

  @Test
  @Timeout(value = 1, unit = TimeUnit.MINUTES)
  void maxCallsBoundsTheMeasuredPhase() throws Exception {
    MatrixPlan plan =
        new MatrixPlan(
            "test",
            List.of("raw-echo"),
            List.of("tsocket"),
            List.of(
                new MatrixPlan.Grid(List.of(Workload.echo(300)), List.of("binary"), List.of(1))),
            1,
            0,
            Duration.ZERO,
            Duration.ofSeconds(20),
            200,
            Duration.ofSeconds(10),
            null,
            null,
            false,
            null);
    long t0 = System.nanoTime();
    List<CellResult> results = new MatrixRunner(Rows.standard(), plan).run(quiet(1));
    assertThat(results.get(0).calls()).isEqualTo(200);
    assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(15));
  }

  static List<CellResult> run(
      Rows rows, List<String> servers, List<String> clients, int connections)
      throws InterruptedException {
    MatrixPlan plan = plan(servers, clients, connections);
    MatrixRunner runner = new MatrixRunner(rows, plan);
    return runner.run(quiet(runner.cells().size()));
  }

  static MatrixPlan plan(List<String> servers, List<String> clients, int connections) {
    return new MatrixPlan(
        "test",
        servers,
        clients,
        List.of(
            new MatrixPlan.Grid(
                List.of(Workload.echo(300)), List.of("compact"), List.of(connections))),
        2,
        0,
        WARMUP,
        DURATION,
        MAX_CALLS,
        Duration.ofSeconds(10),
        8,
        2,
        false,
        null);
  }

  static Progress quiet(int cells) {
    return new Progress(new java.io.PrintWriter(System.out, true), false, cells, 1);
  }
}
