package io.thriftnio.it.bench;

import io.thriftnio.core.WireKind;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs a {@link MatrixPlan}: for each server row, starts it once per protocol on loopback (or uses
 * {@code --target}), then runs every cell against it, one after another. A cell that cannot run is
 * skipped with its reason; nothing stops the run but an interrupt.
 *
 * <p>The cells of a TLS row ({@link ServerRow#tls()}) run TLS clients that trust the run's {@link
 * BenchTls}: loaded from the directory given, else made on first use in a temporary directory.
 */
final class MatrixRunner {

  /** The host in-process rows bind: loopback only. */
  static final String LOOPBACK = "127.0.0.1";

  private final Rows rows;
  private final MatrixPlan plan;
  private final Path tlsDir;
  private BenchTls tls;

  MatrixRunner(Rows rows, MatrixPlan plan) {
    this(rows, plan, null);
  }

  /**
   * A runner.
   *
   * @param tlsDir where the TLS rows' certificates are ({@code serve --tls-dir}, for {@code
   *     --target}), or {@code null} to make them when a TLS row first runs
   */
  MatrixRunner(Rows rows, MatrixPlan plan, Path tlsDir) {
    this.rows = rows;
    this.plan = plan;
    this.tlsDir = tlsDir;
  }

  /** The run's certificates, loaded or made on first use. */
  BenchTls tls() throws IOException, GeneralSecurityException {
    if (tls == null) {
      tls =
          tlsDir != null
              ? BenchTls.load(tlsDir)
              : BenchTls.generate(Files.createTempDirectory("thrift-nio-bench-tls"));
    }
    return tls;
  }

  /** The cells in run order, without duplicates (a preset's grids may overlap). */
  List<CellSpec> cells() {
    Set<String> seen = new LinkedHashSet<>();
    List<CellSpec> cells = new ArrayList<>();
    for (String server : plan.servers()) {
      boolean raw = isRaw(server);
      for (MatrixPlan.Grid grid : plan.grids()) {
        for (String protocol : grid.protocols()) {
          for (Workload workload : grid.workloads()) {
            for (int connections : grid.connections()) {
              for (String client : grid.clients() != null ? grid.clients() : plan.clients()) {
                String key =
                    server
                        + "|"
                        + client
                        + "|"
                        + workload.label()
                        + "|"
                        + protocol
                        + "|"
                        + connections;
                if (seen.add(key)) {
                  cells.add(
                      new CellSpec(
                          server,
                          client,
                          workload,
                          protocol,
                          connections,
                          plan.inFlight(),
                          plan.poolSize(),
                          raw,
                          plan.warmup(),
                          plan.duration(),
                          plan.maxCalls(),
                          plan.callTimeout()));
                }
              }
            }
          }
        }
      }
    }
    return cells;
  }

  private boolean isRaw(String server) {
    ServerRow row = rows.server(server);
    return row != null ? row.rawEcho() : server.equals("raw-echo");
  }

  /**
   * Runs every cell.
   *
   * @param progress told about each cell
   * @return one result per cell, skipped ones included, in run order
   * @throws InterruptedException if interrupted; servers started so far are closed
   */
  List<CellResult> run(Progress progress) throws InterruptedException {
    List<CellSpec> cells = cells();
    List<CellResult> results = new ArrayList<>();
    Map<String, RunningServer> started = new LinkedHashMap<>();
    Map<String, String> startFailures = new LinkedHashMap<>();
    String currentServer = null;
    try {
      for (CellSpec cell : cells) {
        if (!cell.server().equals(currentServer)) {
          closeAll(started);
          startFailures.clear();
          currentServer = cell.server();
        }
        progress.starting(cell);
        long t0 = System.nanoTime();
        CellResult result = runCell(cell, started, startFailures);
        progress.finished(result, (System.nanoTime() - t0) / 1e9);
        results.add(result);
      }
    } finally {
      closeAll(started);
      progress.done();
    }
    return results;
  }

  private CellResult runCell(
      CellSpec plainCell, Map<String, RunningServer> started, Map<String, String> startFailures)
      throws InterruptedException {
    CellSpec cell = plainCell;
    ServerRow row = rows.server(cell.server());
    ClientKindRow kind = rows.client(cell.client());
    if (row == null && plan.target() == null) {
      return CellResult.skipped(cell, reason(cell.server(), rows.missing(cell.server())));
    }
    if (kind == null) {
      return CellResult.skipped(cell, reason(cell.client(), rows.missing(cell.client())));
    }
    String why = row != null ? ClientKindRow.mismatch(row, kind) : null;
    if (why == null && row != null) {
      why = row.cannotServe(cell);
    }
    if (why != null) {
      return CellResult.skipped(cell, why);
    }
    if (row != null && row.tls()) {
      try {
        cell = cell.withTls(tls().clientTls());
      } catch (IOException | GeneralSecurityException e) {
        return CellResult.skipped(
            cell, "no TLS certificates for " + cell.server() + ": " + message(e));
      }
    }
    // After the TLS settings: a kind that speaks plain TCP only (thttpclient) refuses by them.
    why = kind.cannotRun(cell);
    if (why != null) {
      return CellResult.skipped(cell, why);
    }
    InetSocketAddress address;
    if (plan.target() != null) {
      address = plan.target();
    } else {
      String failure = startFailures.get(cell.protocol());
      if (failure != null) {
        return CellResult.skipped(cell, failure);
      }
      RunningServer server = started.get(cell.protocol());
      if (server == null) {
        try {
          server = row.start(serverSpec(row, cell.protocol()));
        } catch (Exception e) {
          String reason = "cannot start " + cell.server() + ": " + message(e);
          startFailures.put(cell.protocol(), reason);
          return CellResult.skipped(cell, reason);
        }
        started.put(cell.protocol(), server);
      }
      address = server.address();
    }
    ClientLoad load;
    try {
      load = kind.open(cell, address);
    } catch (Exception e) {
      return CellResult.skipped(
          cell, "cannot connect " + cell.client() + " to " + address + ": " + message(e));
    }
    return LoadEngine.run(cell, load);
  }

  /**
   * The spec every row of this run starts with, for one protocol; with the run's certificates once
   * a TLS row has asked for them. A row that serves {@code FRAMED} accepts it, and beside it what
   * else the run's client kinds speak and the row serves ({@code HTTP} for {@code thttpclient}); so
   * a run of framed kinds alone starts every row as before. A row that does not serve {@code
   * FRAMED} ({@code thrift-servlet}) accepts what it serves.
   */
  ServerSpec serverSpec(ServerRow row, String protocol) {
    int expected = plan.maxConnections() * Math.max(1, plan.inFlight()) + 16;
    return new ServerSpec(
        LOOPBACK,
        0,
        protocol,
        plan.serverWorkers(),
        plan.serverIoThreads(),
        plan.asyncHandler(),
        expected,
        tls,
        false,
        wireKinds(row, plan.clients().stream().map(rows::client).toList()));
  }

  /**
   * What {@code row} accepts when {@code kinds} call it: {@code FRAMED} (where it serves it) and
   * each kind's transport it serves.
   *
   * @param kinds the client kinds of the run; {@code null} entries (missing kinds) are ignored
   */
  static Set<WireKind> wireKinds(ServerRow row, List<ClientKindRow> kinds) {
    Set<WireKind> served = row.wireKinds();
    if (!served.contains(WireKind.FRAMED)) {
      return EnumSet.copyOf(served);
    }
    EnumSet<WireKind> out = EnumSet.of(WireKind.FRAMED);
    for (ClientKindRow k : kinds) {
      if (k != null && served.contains(k.wireKind())) {
        out.add(k.wireKind());
      }
    }
    return out;
  }

  private static String reason(String name, String missing) {
    return missing != null ? missing : name + " is not a row of this build";
  }

  static String message(Throwable e) {
    String m = e.getMessage();
    return m == null ? e.toString() : e.getClass().getSimpleName() + ": " + m;
  }

  private static void closeAll(Map<String, RunningServer> started) {
    for (RunningServer s : started.values()) {
      Lanes.closeQuietly(s);
    }
    started.clear();
  }
}
