package io.thriftnio.it.bench;

import io.thriftnio.testkit.Payloads;
import java.time.Duration;
import java.util.List;

/**
 * The scenario presets of {@code matrix --preset}: what each runs when the command line says
 * nothing else. An explicit option replaces the preset's value; {@code --sizes}, {@code
 * --protocols} or {@code --connections} replace the preset's grids with one cross product.
 *
 * @param name the preset
 * @param servers server selectors
 * @param clients client selectors
 * @param grids the combinations
 * @param warmup default warm-up
 * @param duration default measurement
 * @param serverWorkers worker threads of every row, or null for defaults
 * @param serverIoThreads IO threads of every row, or null for defaults
 * @param poolSize pooled kinds' connection limit, 0 for their default
 * @param calls measured calls per cell, or 0 for time alone ({@code --calls})
 */
record Presets(
    String name,
    List<String> servers,
    List<String> clients,
    List<MatrixPlan.Grid> grids,
    Duration warmup,
    Duration duration,
    Integer serverWorkers,
    Integer serverIoThreads,
    int poolSize,
    long calls) {

  static final List<String> NAMES =
      List.of("quick", "seed", "full", "sleep", "pool", "dbwork", "guide");

  /** The calls of each step of the {@code guide} preset, as the Guide made them. */
  static final long GUIDE_CALLS = 1_000_000;

  /** The {@code guide} preset's bound on one step, should it stall. */
  static final Duration GUIDE_STEP_LIMIT = Duration.ofHours(1);

  /** A preset bounded by time alone. */
  Presets(
      String name,
      List<String> servers,
      List<String> clients,
      List<MatrixPlan.Grid> grids,
      Duration warmup,
      Duration duration,
      Integer serverWorkers,
      Integer serverIoThreads,
      int poolSize) {
    this(
        name,
        servers,
        clients,
        grids,
        warmup,
        duration,
        serverWorkers,
        serverIoThreads,
        poolSize,
        0);
  }

  /** The handler time of the {@code sleep} preset, in milliseconds. */
  static final int SLEEP_MILLIS = 100;

  /** The handler time of the {@code pool} preset, in milliseconds. */
  static final int POOL_SLEEP_MILLIS = 500;

  static Presets of(String name) {
    switch (name) {
      case "quick":
        // The README's main job: about 3 minutes for 11 rows x 2 sizes x 2 connection counts.
        return new Presets(
            name,
            List.of("ours", "stock", "raw-echo"),
            List.of("tsocket"),
            List.of(grid(echo(300, 3 * 1024), List.of("compact"), List.of(1, 40))),
            Duration.ofSeconds(1),
            Duration.ofSeconds(3),
            null,
            null,
            0);
      case "seed":
        // The 2011 Grizzly-Thrift benchmark post's grid.
        return new Presets(
            name,
            List.of("all"),
            List.of("tsocket", "netty-async", "grizzly-async"),
            List.of(
                grid(
                    echo(Payloads.LARGE, Payloads.MEDIUM, Payloads.SMALL),
                    List.of("compact", "binary"),
                    List.of(40)),
                grid(
                    echo(Payloads.SMALL),
                    List.of("compact"),
                    List.of(20, 40, 60, 80, 100, 120, 150, 500, 1000))),
            Duration.ofSeconds(2),
            Duration.ofSeconds(5),
            null,
            null,
            0);
      case "full":
        return new Presets(
            name,
            List.of("all"),
            List.of("all"),
            List.of(
                grid(
                    echo(Payloads.SMALL, Payloads.MEDIUM, Payloads.LARGE),
                    List.of("binary", "compact"),
                    List.of(1, 20, 40))),
            Duration.ofSeconds(2),
            Duration.ofSeconds(5),
            null,
            null,
            0);
      case "sleep":
        // The strategy contract: one IO thread, ten workers, ten clients, a 100 ms handler.
        return new Presets(
            name,
            List.of("all"),
            List.of("tsocket"),
            List.of(grid(List.of(Workload.sleep(SLEEP_MILLIS)), List.of("compact"), List.of(10))),
            Duration.ofSeconds(1),
            Duration.ofSeconds(5),
            10,
            1,
            0);
      case "pool":
        // A 500 ms handler at high parallelism: a connection per call vs pooled sync vs async.
        // netty/worker with enough workers that the server never queues: the pool is measured.
        return new Presets(
            name,
            List.of("netty/worker"),
            List.of("per-call-connection", "pooled-sync", "pooled-async"),
            List.of(
                grid(
                    List.of(Workload.sleep(POOL_SLEEP_MILLIS)),
                    List.of("compact"),
                    List.of(100, 200, 500, 1000))),
            Duration.ofSeconds(2),
            Duration.ofSeconds(10),
            1100,
            null,
            0);
      case "dbwork":
        return new Presets(
            name,
            List.of("all"),
            List.of("pooled-async"),
            List.of(grid(List.of(Workload.dbWork(10)), List.of("compact"), List.of(64))),
            Duration.ofSeconds(2),
            Duration.ofSeconds(5),
            null,
            null,
            0);
      case "guide":
        // The Programmer's Guide to Apache Thrift: 1,000,000 sequential get_last_sale calls from
        // one client, through a TServlet over HTTP + JSON, then over TCP + JSON, then TCP +
        // binary; beside each stock step, our netty/worker and grizzly/worker. No warm-up: the
        // Guide timed the whole run.
        return new Presets(
            name,
            List.of("thrift-servlet", "thrift-threadpool", "netty/worker", "grizzly/worker"),
            List.of("thttpclient", "tsocket"),
            List.of(
                new MatrixPlan.Grid(
                    List.of(Workload.lastSale()),
                    List.of("json"),
                    List.of(1),
                    List.of("thttpclient")),
                new MatrixPlan.Grid(
                    List.of(Workload.lastSale()),
                    List.of("json", "binary"),
                    List.of(1),
                    List.of("tsocket"))),
            Duration.ZERO,
            GUIDE_STEP_LIMIT,
            null,
            null,
            0,
            GUIDE_CALLS);
      default:
        throw new IllegalArgumentException("preset: " + name + " (expected: one of " + NAMES + ")");
    }
  }

  private static List<Workload> echo(int... sizes) {
    return java.util.Arrays.stream(sizes).mapToObj(Workload::echo).toList();
  }

  private static MatrixPlan.Grid grid(
      List<Workload> workloads, List<String> protocols, List<Integer> connections) {
    return new MatrixPlan.Grid(workloads, protocols, connections);
  }
}
