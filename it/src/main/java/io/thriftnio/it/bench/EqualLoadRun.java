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

  /** The longest closed-loop probe for a row's maximum: it finds a rate, not a cost. */
  private static final java.time.Duration MAX_PROBE = java.time.Duration.ofSeconds(2);

  private EqualLoadRun() {}

  static int measure(EfficiencyCommand.Settings s, Pinning pin, PrintWriter out, PrintWriter err)
      throws IOException, InterruptedException {
    EqualLoad eq = s.equalLoad();
    Rows rows = Rows.standard();
    BenchTls tls = null;
    if (s.servers().stream().map(rows::server).anyMatch(r -> r != null && r.tls())) {
      try {
        tls = BenchTls.generate(Files.createTempDirectory("thrift-nio-bench-tls"));
      } catch (GeneralSecurityException e) {
        throw new IOException("cannot make the TLS rows' certificates: " + e.getMessage(), e);
      }
    }
    int perRound = s.servers().size() * eq.cellsPerRow();
    double cellSeconds = (s.warmup().toMillis() + s.duration().toMillis()) / 1000.0 + 0.3;
    err.printf(
        Locale.ROOT,
        "efficiency: equal load, %d servers, %d cells x %d rounds, about %s; %s%n",
        s.servers().size(),
        perRound,
        s.rounds(),
        Progress.clock(s.rounds() * (perRound * cellSeconds + s.servers().size() * 2.0)),
        pin.note());
    err.flush();
    Map<String, EqualLoadResult> results = new LinkedHashMap<>();
    Instant started = Instant.now();
    long t0 = System.nanoTime();
    int done = 0;
    for (int round = 1; round <= s.rounds(); round++) {
      for (String server : s.servers()) {
        Row row = new Row(rows, s, eq, server);
        for (EqualLoad.Shape shape : eq.shapes()) {
          for (int p : eq.atLoad()) {
            results.computeIfAbsent(
                key(server, shape, p, 0),
                k -> EqualLoadResult.of(server, shape, row.kindName, p, 0));
          }
          for (double r : shape.rates()) {
            results.computeIfAbsent(
                key(server, shape, 0, r),
                k -> EqualLoadResult.of(server, shape, row.kindName, 0, r));
          }
        }
        ServeProcess serve = null;
        if (row.cannot == null) {
          try {
            serve =
                ServeProcess.start(
                    pin.serverPrefix(),
                    List.of(),
                    EfficiencyCommand.serveArgs(
                        s,
                        server,
                        row.row.tls() ? tls : null,
                        MatrixRunner.wireKinds(row.row, List.of(row.kind))));
          } catch (IOException e) {
            row.cannot = "cannot start " + server + ": " + MatrixRunner.message(e);
          }
        }
        try {
          boolean first = true;
          for (EqualLoad.Shape shape : eq.shapes()) {
            double max = Double.NaN;
            String maxWhy = null;
            if (!eq.atLoad().isEmpty()) {
              done++;
              if (row.cannot == null) {
                Object probe = probe(row, s, pin, shape, serve, first, tls);
                first = false;
                if (probe instanceof Double) {
                  max = (Double) probe;
                } else {
                  maxWhy = (String) probe;
                }
              }
              progressProbe(
                  err,
                  t0,
                  done,
                  perRound * s.rounds(),
                  round,
                  s,
                  server,
                  shape,
                  max,
                  row.cannot != null ? row.cannot : maxWhy);
              for (int p : eq.atLoad()) {
                done++;
                String why = row.cannot != null ? row.cannot : maxWhy;
                EqualLoadResult.Round r = null;
                if (why == null) {
                  Object o = cell(row, s, pin, shape, max * p / 100, serve, first, tls, max);
                  first = false;
                  if (o instanceof EqualLoadResult.Round) {
                    r = (EqualLoadResult.Round) o;
                  } else {
                    why = (String) o;
                  }
                }
                record(results, key(server, shape, p, 0), r, why);
                progress(
                    err,
                    t0,
                    done,
                    perRound * s.rounds(),
                    round,
                    s,
                    server,
                    shape,
                    p + "% of max",
                    r,
                    why);
              }
            }
            for (double rate : shape.rates()) {
              done++;
              String why = row.cannot;
              EqualLoadResult.Round r = null;
              if (why == null) {
                Object o = cell(row, s, pin, shape, rate, serve, first, tls, Double.NaN);
                first = false;
                if (o instanceof EqualLoadResult.Round) {
                  r = (EqualLoadResult.Round) o;
                } else {
                  why = (String) o;
                }
              }
              record(results, key(server, shape, 0, rate), r, why);
              progress(
                  err,
                  t0,
                  done,
                  perRound * s.rounds(),
                  round,
                  s,
                  server,
                  shape,
                  String.format(Locale.ROOT, "%,.0f/s", rate),
                  r,
                  why);
            }
          }
        } finally {
          if (serve != null) {
            serve.close();
          }
        }
      }
    }
    List<EqualLoadResult> all = new ArrayList<>(results.values());
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

  private static void record(
      Map<String, EqualLoadResult> results, String key, EqualLoadResult.Round r, String why) {
    if (r != null) {
      results.get(key).rounds().add(r);
    } else {
      results.put(key, results.get(key).skip(why));
    }
  }

  static String key(String server, EqualLoad.Shape shape, int percent, double rate) {
    return server + "|" + shape.name() + "|" + percent + "|" + rate;
  }

  /** A server row of the run, its open-loop client kind, and why it cannot run if it cannot. */
  private static final class Row {
    final String name;
    final ServerRow row;
    final ClientKindRow kind;
    final String kindName;
    String cannot;

    Row(Rows rows, EfficiencyCommand.Settings s, EqualLoad eq, String name) {
      this.name = name;
      this.row = rows.server(name);
      this.kindName =
          eq.client() != null ? eq.client() : row != null ? row.openLoopClient() : "netty-async";
      this.kind = rows.client(kindName);
      if (row == null) {
        cannot =
            rows.missing(name) != null ? rows.missing(name) : name + " is not a row of this build";
      } else if (kind == null) {
        cannot =
            rows.missing(kindName) != null
                ? rows.missing(kindName)
                : kindName + " is not a client kind of this build";
      } else {
        cannot = ClientKindRow.mismatch(row, kind);
      }
    }
  }

  private static CellSpec spec(
      Row row,
      EfficiencyCommand.Settings s,
      int connections,
      int inFlight,
      java.time.Duration warmup,
      java.time.Duration duration,
      BenchTls tls) {
    return new CellSpec(
        row.name,
        row.kindName,
        Workload.echo(s.size()),
        s.protocol(),
        connections,
        inFlight,
        0,
        row.row.rawEcho(),
        warmup,
        duration,
        0,
        EfficiencyCommand.CALL_TIMEOUT,
        row.row.tls() ? tls.clientTls() : null);
  }

  /** The row's closed-loop calls/s for {@code shape}, or why it could not run. */
  private static Object probe(
      Row row,
      EfficiencyCommand.Settings s,
      Pinning pin,
      EqualLoad.Shape shape,
      ServeProcess serve,
      boolean first,
      BenchTls tls)
      throws InterruptedException {
    java.time.Duration d = s.duration().compareTo(MAX_PROBE) < 0 ? s.duration() : MAX_PROBE;
    CellSpec cell =
        spec(
            row,
            s,
            shape.connections(),
            shape.probeDepth(),
            first ? s.warmup().multipliedBy(2) : s.warmup(),
            d,
            tls);
    Object opened = open(row, cell, serve);
    if (opened instanceof String) {
      return opened;
    }
    EfficiencyCommand.Sampler sampler = new EfficiencyCommand.Sampler(serve, pin, s.warmupCalls());
    CellResult r = LoadEngine.run(cell, (ClientLoad) opened, sampler);
    if (r.calls() == 0) {
      return "the closed-loop probe completed no call (" + r.errors() + " errors)";
    }
    return r.callsPerSec();
  }

  /** One open-loop cell at {@code rate}: its round, or why it could not run. */
  private static Object cell(
      Row row,
      EfficiencyCommand.Settings s,
      Pinning pin,
      EqualLoad.Shape shape,
      double rate,
      ServeProcess serve,
      boolean first,
      BenchTls tls,
      double max)
      throws InterruptedException {
    CellSpec cell =
        spec(
            row,
            s,
            shape.connections(),
            OpenLoop.MAX_PER_LANE,
            first ? s.warmup().multipliedBy(2) : s.warmup(),
            s.duration(),
            tls);
    Object opened = open(row, cell, serve);
    if (opened instanceof String) {
      return opened;
    }
    EfficiencyCommand.Sampler sampler = new EfficiencyCommand.Sampler(serve, pin, s.warmupCalls());
    RateRun run;
    try {
      run = OpenLoop.run(cell, rate, (ClientLoad) opened, sampler);
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
    if (sampler.failure() != null) {
      return "cannot sample the server's CPU: " + MatrixRunner.message(sampler.failure());
    }
    return new EqualLoadResult.Round(
        run,
        sampler.sample(
            run.calls(),
            run.seconds(),
            run.p50Us(),
            run.p99Us(),
            run.errors(),
            run.checkFailures()),
        max);
  }

  /** The kind's load for {@code cell}, or why it cannot run. */
  private static Object open(Row row, CellSpec cell, ServeProcess serve) {
    String why = row.row.cannotServe(cell);
    if (why == null) {
      why = row.kind.cannotRun(cell);
    }
    if (why != null) {
      return why;
    }
    try {
      return row.kind.open(cell, serve.address());
    } catch (Exception e) {
      return "cannot connect "
          + row.kindName
          + " to "
          + serve.address()
          + ": "
          + MatrixRunner.message(e);
    }
  }

  private static String head(
      long t0,
      int done,
      int total,
      int round,
      EfficiencyCommand.Settings s,
      String server,
      EqualLoad.Shape shape,
      String what) {
    double elapsed = (System.nanoTime() - t0) / 1e9;
    return String.format(
        Locale.ROOT,
        "[%s elapsed, ETA %s] round %d/%d cell %d/%d %s %s %s: ",
        Progress.clock(elapsed),
        Progress.clock(elapsed / done * (total - done)),
        round,
        s.rounds(),
        done,
        total,
        server,
        shape.name(),
        what);
  }

  private static void progressProbe(
      PrintWriter err,
      long t0,
      int done,
      int total,
      int round,
      EfficiencyCommand.Settings s,
      String server,
      EqualLoad.Shape shape,
      double max,
      String why) {
    String what = "max (closed loop " + shape.connections() + "x" + shape.probeDepth() + ")";
    err.println(
        head(t0, done, total, round, s, server, shape, what)
            + (why != null ? "skipped: " + why : String.format(Locale.ROOT, "%,.0f calls/s", max)));
    err.flush();
  }

  private static void progress(
      PrintWriter err,
      long t0,
      int done,
      int total,
      int round,
      EfficiencyCommand.Settings s,
      String server,
      EqualLoad.Shape shape,
      String what,
      EqualLoadResult.Round r,
      String why) {
    String head = head(t0, done, total, round, s, server, shape, what);
    if (r == null) {
      err.println(head + "skipped: " + why);
    } else {
      RateRun run = r.run();
      err.println(
          head
              + String.format(
                  Locale.ROOT,
                  "target %,.0f/s, offered %,.0f/s, achieved %,.0f/s (%s), server %.1f us/call, client %.1f us/call,"
                      + " p50 %,d us, p99 %,d us, p99.9 %,d us, send lag p99 %,d us%s",
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
}
