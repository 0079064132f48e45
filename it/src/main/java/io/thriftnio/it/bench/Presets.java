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
    int poolSize) {

  static final List<String> NAMES = List.of("quick", "seed", "full", "sleep", "pool", "dbwork");

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
