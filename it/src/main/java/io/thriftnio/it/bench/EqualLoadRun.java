package io.thriftnio.it.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Measures the equal-load cells of an {@code efficiency} run ({@link EqualLoad}) in the load
 * generator's JVM: rounds interleaved across rows, each row in a fresh {@code serve} child per
 * round, pinned as the closed-loop cells are; per row and shape, a closed-loop probe for the row's
 * maximum when {@code --at-load} asks, then the open-loop cells ({@link OpenLoop}), each sampled
 * for CPU and allocation over its window by {@link EfficiencyCommand.Sampler}.
 */
final class EqualLoadRun {

  private final EfficiencyCommand.Settings settings;
  private final PrintWriter err;
  private final Map<String, EqualLoadResult> results = new LinkedHashMap<>();
  private final long t0 = System.nanoTime();
  private final int total;
  private int done;

  private EqualLoadRun(EfficiencyCommand.Settings settings, PrintWriter err) {
    this.settings = settings;
    this.err = err;
    this.total = settings.servers().size() * settings.equalLoad().cellsPerRow() * settings.rounds();
  }

  static int measure(EfficiencyCommand.Settings s, Pinning pin, PrintWriter out, PrintWriter err)
      throws IOException, InterruptedException {
    Rows rows = Rows.standard();
    BenchTls tls = null;
    if (s.servers().stream().map(rows::server).anyMatch(r -> r != null && r.tls())) {
      try {
        // One CA for the whole run, as the closed-loop cells do.
        tls = BenchTls.generate(Files.createTempDirectory("thrift-nio-bench-tls"));
      } catch (GeneralSecurityException e) {
        throw new IOException("cannot make the TLS rows' certificates: " + e.getMessage(), e);
      }
    }
    EqualLoadRun run = new EqualLoadRun(s, err);
    double cellSeconds = (s.warmup().toMillis() + s.duration().toMillis()) / 1000.0 + 0.3;
    err.printf(
        Locale.ROOT,
        "efficiency: equal load, %d servers, %d cells x %d rounds, about %s; %s%n",
        s.servers().size(),
        run.total / s.rounds(),
        s.rounds(),
        Progress.clock(run.total * cellSeconds + s.rounds() * s.servers().size() * 2.0),
        pin.note());
    err.flush();
    Instant started = Instant.now();
    for (int round = 1; round <= s.rounds(); round++) {
      for (String server : s.servers()) {
        try (EqualLoadRow row = new EqualLoadRow(rows, s, pin, tls, server)) {
          row.start();
          run.row(round, row);
        }
      }
    }
    List<EqualLoadResult> all = new ArrayList<>(run.results.values());
    out.print(EqualLoadReports.markdownTables(all));
    out.flush();
    List<Path> written = EqualLoadReports.writeAll(s.out(), s, pin, all, started);
    err.println("efficiency: wrote " + written.size() + " files to " + s.out().toAbsolutePath());
    long bad = all.stream().mapToLong(EqualLoadResult::errors).sum();
    if (bad > 0) {
      err.println("efficiency: " + bad + " failed or corrupted calls; see the errors column");
    }
    err.flush();
    return 0;
  }

  /** Every cell of one row in one round: per shape, the probe and shares, then fixed rates. */
  private void row(int round, EqualLoadRow row) throws InterruptedException {
    EqualLoad eq = settings.equalLoad();
    for (EqualLoad.Shape shape : eq.shapes()) {
      if (!eq.atLoad().isEmpty()) {
        Object probe = row.cannot != null ? row.cannot : row.probe(shape);
        double max = probe instanceof Double ? (Double) probe : Double.NaN;
        String why = probe instanceof String ? (String) probe : null;
        String what = "max (closed loop " + shape.connections() + "x" + shape.probeDepth() + ")";
        err.println(
            head(round, row.name, shape, what)
                + (why != null
                    ? "skipped: " + why
                    : String.format(Locale.ROOT, "%,.0f calls/s", max)));
        err.flush();
        for (int p : eq.atLoad()) {
          cell(round, row, shape, p, max * p / 100, max, why, p + "% of max");
        }
      }
      for (double rate : shape.rates()) {
        String what = String.format(Locale.ROOT, "%,.0f/s", rate);
        cell(round, row, shape, 0, rate, Double.NaN, row.cannot, what);
      }
    }
  }

  /** Runs one open-loop cell unless {@code why} says it cannot, records it and prints its line. */
  private void cell(
      int round,
      EqualLoadRow row,
      EqualLoad.Shape shape,
      int percent,
      double rate,
      double max,
      String why,
      String what)
      throws InterruptedException {
    String key = key(row.name, shape, percent, percent > 0 ? 0 : rate);
    EqualLoadResult result =
        results.computeIfAbsent(
            key,
            k ->
                EqualLoadResult.of(row.name, shape, row.kindName, percent, percent > 0 ? 0 : rate));
    Object o = why != null ? why : row.cell(shape, rate, max);
    if (o instanceof EqualLoadResult.Round) {
      result.rounds().add((EqualLoadResult.Round) o);
    } else {
      results.put(key, result.skip((String) o));
    }
    String head = head(round, row.name, shape, what);
    if (!(o instanceof EqualLoadResult.Round)) {
      err.println(head + "skipped: " + o);
    } else {
      EqualLoadResult.Round r = (EqualLoadResult.Round) o;
      RateRun run = r.run();
      err.println(
          head
              + String.format(
                  Locale.ROOT,
                  "target %,.0f/s, offered %,.0f/s, achieved %,.0f/s (%s), server %.1f us/call,"
                      + " client %.1f us/call, p50 %,d us, p99 %,d us, p99.9 %,d us,"
                      + " send lag p99 %,d us%s",
                  run.target(),
                  run.offered(),
                  run.achieved(),
                  run.sustained() ? "sustained" : "not sustained",
                  r.cost().serverUsPerCall(),
                  r.cost().clientUsPerCall(),
                  run.p50Us(),
                  run.p99Us(),
                  run.p999Us(),
                  run.sendLagP99Us(),
                  run.errors() + run.checkFailures() > 0
                      ? ", errors " + run.errors() + " bad " + run.checkFailures()
                      : ""));
    }
    err.flush();
  }

  static String key(String server, EqualLoad.Shape shape, int percent, double rate) {
    return server + "|" + shape.name() + "|" + percent + "|" + rate;
  }

  /** The progress line's head; counts the cell (a probe counts as one). */
  private String head(int round, String server, EqualLoad.Shape shape, String what) {
    done++;
    double elapsed = (System.nanoTime() - t0) / 1e9;
    return String.format(
        Locale.ROOT,
        "[%s elapsed, ETA %s] round %d/%d cell %d/%d %s %s %s: ",
        Progress.clock(elapsed),
        Progress.clock(elapsed / done * (total - done)),
        round,
        settings.rounds(),
        done,
        total,
        server,
        shape.name(),
        what);
  }
}
