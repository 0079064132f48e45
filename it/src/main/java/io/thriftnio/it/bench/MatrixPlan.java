package io.thriftnio.it.bench;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

/**
 * Everything a matrix run needs, resolved from a preset and the command line.
 *
 * @param preset the preset's name, or {@code custom}
 * @param servers server row names (already expanded)
 * @param clients client kind names (already expanded)
 * @param grids the combinations to run per server and client; a preset may have several
 * @param inFlight calls in flight per connection for async kinds
 * @param poolSize the pooled kinds' connection limit, 0 for their default
 * @param warmup load before each measurement
 * @param duration each measurement
 * @param maxCalls measured calls per cell at most, 0 for no bound but time
 * @param callTimeout one call's limit
 * @param serverWorkers worker threads of every server row, or null for defaults
 * @param serverIoThreads IO threads of every server row, or null for defaults
 * @param asyncHandler serve the async handler where a row can
 * @param target an external server ({@code serve} elsewhere) instead of in-process rows, or null
 */
record MatrixPlan(
    String preset,
    List<String> servers,
    List<String> clients,
    List<Grid> grids,
    int inFlight,
    int poolSize,
    Duration warmup,
    Duration duration,
    long maxCalls,
    Duration callTimeout,
    Integer serverWorkers,
    Integer serverIoThreads,
    boolean asyncHandler,
    InetSocketAddress target) {

  /**
   * A cross product of workloads, protocols and connection counts, for the plan's client kinds or
   * for some of them.
   *
   * @param workloads what calls do
   * @param protocols protocol names
   * @param connections connection counts (parallelism for pooled kinds)
   * @param clients the client kinds of this grid, or {@code null} for every kind of the plan
   */
  record Grid(
      List<Workload> workloads,
      List<String> protocols,
      List<Integer> connections,
      List<String> clients) {

    /** A grid for every client kind of the plan. */
    Grid(List<Workload> workloads, List<String> protocols, List<Integer> connections) {
      this(workloads, protocols, connections, null);
    }

    /** This grid for every client kind of the plan. */
    Grid forEveryClient() {
      return new Grid(workloads, protocols, connections, null);
    }
  }

  /** The most connections any cell opens at once, for thread-per-connection rows. */
  int maxConnections() {
    int max = 1;
    for (Grid g : grids) {
      for (int c : g.connections()) {
        max = Math.max(max, c);
      }
    }
    return max;
  }
}
