package io.thriftnio.it.bench;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * One server row of an equal-load run in one round: its open-loop client kind, its {@code serve}
 * child, and its cells ({@link #probe}, {@link #cell}), each returning its result or why it could
 * not run. A fresh server JVM's first cell warms up twice as long, as in the closed loop.
 */
final class EqualLoadRow implements AutoCloseable {

  /** The longest closed-loop probe for a row's maximum: it finds a rate, not a cost. */
  static final Duration MAX_PROBE = Duration.ofSeconds(2);

  final String name;
  final String kindName;
  private final ServerRow row;
  private final ClientKindRow kind;
  private final EfficiencyCommand.Settings settings;
  private final Pinning pin;
  private final BenchTls tls;
  private ServeProcess serve;
  private boolean first = true;

  /** Why no cell of the row can run this round, or {@code null}. */
  String cannot;

  EqualLoadRow(Rows rows, EfficiencyCommand.Settings s, Pinning pin, BenchTls tls, String name) {
    this.name = name;
    this.settings = s;
    this.pin = pin;
    this.tls = tls;
    this.row = rows.server(name);
    EqualLoad eq = s.equalLoad();
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

  /** Starts the row's {@code serve} child, unless it cannot run; on failure says why. */
  void start() {
    if (cannot != null) {
      return;
    }
    try {
      serve =
          ServeProcess.start(
              pin.serverPrefix(),
              row.childJava(),
              List.of(),
              EfficiencyCommand.serveArgs(
                  settings,
                  name,
                  row.tls() ? tls : null,
                  MatrixRunner.wireKinds(row, List.of(kind))));
    } catch (IOException e) {
      cannot = "cannot start " + name + ": " + MatrixRunner.message(e);
    }
  }

  @Override
  public void close() {
    if (serve != null) {
      serve.close();
      serve = null;
    }
  }

  /**
   * The row's closed-loop calls/s for {@code shape} (a {@link Double}), or why it could not run.
   */
  Object probe(EqualLoad.Shape shape) throws InterruptedException {
    Duration d = settings.duration().compareTo(MAX_PROBE) < 0 ? settings.duration() : MAX_PROBE;
    CellSpec cell = spec(shape.connections(), shape.probeDepth(), d);
    Object opened = open(cell);
    if (opened instanceof String) {
      return opened;
    }
    EfficiencyCommand.Sampler sampler =
        new EfficiencyCommand.Sampler(serve, pin, settings.warmupCalls());
    CellResult r = LoadEngine.run(cell, (ClientLoad) opened, sampler);
    if (r.calls() == 0) {
      return "the closed-loop probe completed no call (" + r.errors() + " errors)";
    }
    return r.callsPerSec();
  }

  /**
   * One open-loop cell at {@code rate}: its {@link EqualLoadResult.Round}, or why it could not run.
   *
   * @param max the row's maximum this round, or NaN for a fixed rate
   */
  Object cell(EqualLoad.Shape shape, double rate, double max) throws InterruptedException {
    CellSpec cell = spec(shape.connections(), OpenLoop.MAX_PER_LANE, settings.duration());
    Object opened = open(cell);
    if (opened instanceof String) {
      return opened;
    }
    EfficiencyCommand.Sampler sampler =
        new EfficiencyCommand.Sampler(serve, pin, settings.warmupCalls());
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

  private CellSpec spec(int connections, int inFlight, Duration duration) {
    Duration warmup = first ? settings.warmup().multipliedBy(2) : settings.warmup();
    first = false;
    return new CellSpec(
        name,
        kindName,
        Workload.echo(settings.size()),
        settings.protocol(),
        connections,
        inFlight,
        0,
        row.rawEcho(),
        warmup,
        duration,
        0,
        EfficiencyCommand.CALL_TIMEOUT,
        row.tls() ? tls.clientTls() : null);
  }

  /** The kind's load for {@code cell}, or why it cannot run. */
  private Object open(CellSpec cell) {
    String why = row.cannotServe(cell);
    if (why == null) {
      why = kind.cannotRun(cell);
    }
    if (why != null) {
      return why;
    }
    try {
      return kind.open(cell, serve.address());
    } catch (Exception e) {
      return "cannot connect "
          + kindName
          + " to "
          + serve.address()
          + ": "
          + MatrixRunner.message(e);
    }
  }
}
