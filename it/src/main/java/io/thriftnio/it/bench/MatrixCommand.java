package io.thriftnio.it.bench;

import io.thriftnio.core.util.internal.Framing;
import io.thriftnio.testkit.Payloads;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code matrix}: runs every combination of server rows, client kinds, sizes, protocols and
 * connection counts, in-process on loopback or against a {@code serve} elsewhere ({@code
 * --target}), and writes the tables, CSV, JSON and charts.
 */
@Command(
    name = "matrix",
    mixinStandardHelpOptions = true,
    versionProvider = BenchMain.Version.class,
    sortOptions = false,
    description = {
      "Measures server rows x client kinds x sizes x protocols x connection counts.",
      "Per cell: calls/s, p50/p99/p99.9 latency (us), errors, payload check failures. Prints a"
          + " Markdown table on stdout and writes results.csv, results.json, report.md and PNG"
          + " charts to --out. Progress goes to stderr.",
      "Presets: quick (README main job, ~6 min: with two or more CPUs and taskset it measures"
          + " as 'efficiency' does, two rounds of 1 s + 2 s per cell; else, or with"
          + " --in-process, the in-process matrix of 11 rows x 300 B/3k x 1/40 connections),"
          + " seed (2011 Grizzly-Thrift grid), full,"
          + " sleep (sleep(100), 10 clients, 1 IO thread, 10 workers), pool (sleep(500),"
          + " parallelism 100..1000: per-call-connection vs pooled-sync vs pooled-async),"
          + " dbwork (db_work(10), 64 callers, pooled-async),"
          + " guide (The Programmer's Guide to Apache Thrift: --calls sequential get_last_sale"
          + " calls, default 1,000,000, from one client and no warm-up: thrift-servlet,"
          + " netty/worker and grizzly/worker over HTTP + JSON with thttpclient, then"
          + " thrift-threadpool, netty/worker and grizzly/worker over TCP + JSON and TCP + binary"
          + " with tsocket; a table of total time, calls/s, p50 and p99 per step, and guide.csv)."
    })
final class MatrixCommand implements Callable<Integer> {

  /** Largest echo payload: the default frame limit less room for the message header. */
  static final int MAX_SIZE = Framing.DEFAULT_MAX_FRAME_SIZE - 1024;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--preset",
      defaultValue = "quick",
      paramLabel = "NAME",
      description = "quick, seed, full, sleep, pool, dbwork or guide (default: ${DEFAULT-VALUE})")
  String preset;

  @Option(
      names = "--servers",
      split = ",",
      paramLabel = "S",
      description =
          "server rows: all, ours, stock, netty, grizzly, netty/worker, "
              + "grizzly/leader-follower, thrift-hsha, raw-echo, ...; by name only: netty-nio/..., "
              + "netty-epoll/..., netty-iouring/..., the TLS rows netty-tls/..., "
              + "netty-openssl/..., grizzly-tls/..., thrift-servlet (TServlet in Jetty, HTTP "
              + "only), and the peers family: drift (Drift 1.22; in this JVM, so a JDK >= 21),"
              + " armeria (Armeria 1.33.1's THttpService, HTTP only)"
              + " (default: the preset's)")
  List<String> servers;

  @Option(
      names = "--clients",
      split = ",",
      paramLabel = "C",
      description =
          "client kinds: all, tsocket, netty-sync, grizzly-sync, netty-async, grizzly-async,"
              + " pooled-sync, pooled-async, per-call-connection, thttpclient (stock THttpClient),"
              + " netty-sync-http, netty-async-http, grizzly-sync-http, grizzly-async-http (the"
              + " library's HTTP clients); the HTTP kinds call the library's rows, started"
              + " accepting HTTP beside framed, and thrift-servlet; other rows skip them; named"
              + " only: drift (Drift's own client, blocking; needs a JDK >= 21)"
              + " (default: the preset's)")
  List<String> clients;

  @Option(
      names = "--sizes",
      split = ",",
      paramLabel = "SIZE",
      description = "echo payload sizes: 300, 3k, 3m (default: the preset's)")
  List<String> sizes;

  @Option(
      names = "--protocols",
      split = ",",
      paramLabel = "P",
      description = "binary, compact, json (default: the preset's)")
  List<String> protocols;

  @Option(
      names = "--connections",
      split = ",",
      paramLabel = "N",
      description = "connection counts; the parallelism for pooled kinds (default: the preset's)")
  List<Integer> connections;

  @Option(
      names = "--warmup",
      paramLabel = "D",
      converter = Cli.DurationConverter.class,
      description = "load before each measurement, e.g. 2s (default: the preset's)")
  Duration warmup;

  @Option(
      names = "--duration",
      paramLabel = "D",
      converter = Cli.DurationConverter.class,
      description = "measurement per cell, e.g. 5s (default: the preset's)")
  Duration duration;

  @Option(
      names = "--target",
      paramLabel = "HOST:PORT",
      converter = Cli.AddressConverter.class,
      description = "measure a 'serve' running elsewhere instead of in-process rows")
  InetSocketAddress target;

  @Option(
      names = "--target-server",
      paramLabel = "S",
      description =
          "what --target runs, for the tables; raw-echo switches to raw frames "
              + "(default: the single --servers name, else 'target')")
  String targetServer;

  @Option(
      names = "--tls-dir",
      paramLabel = "DIR",
      description =
          "certificates of the TLS rows (netty-tls/..., netty-openssl/...,"
              + " grizzly-tls/...) as 'serve --tls-dir' wrote them, for --target; clients trust its"
              + " ca.pem (default: a fresh CA in a temporary directory, for in-process rows)")
  Path tlsDir;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "output folder (default: it/target/matrix)")
  Path out;

  @Option(
      names = "--in-flight",
      paramLabel = "N",
      defaultValue = "1",
      description =
          "calls kept in flight per connection by the netty-async and grizzly-async kinds; "
              + "pooled kinds run one call per caller (default: ${DEFAULT-VALUE})")
  int inFlight;

  @Option(
      names = "--pool-size",
      paramLabel = "N",
      defaultValue = "0",
      description =
          "pooled kinds' connection limit; 0: pooled-sync one per caller, "
              + "pooled-async one per 32 callers (default: ${DEFAULT-VALUE})")
  int poolSize;

  @Option(
      names = {"--calls", "--max-calls"},
      paramLabel = "N",
      description =
          "stop a cell's measurement after this many calls, --duration still bounding it; 0:"
              + " time only (default: the preset's: 1000000 for guide, else 0)")
  Long maxCalls;

  @Option(
      names = "--call-timeout",
      paramLabel = "D",
      defaultValue = "30s",
      converter = Cli.DurationConverter.class,
      description = "one call's limit before it counts as an error (default: ${DEFAULT-VALUE})")
  Duration callTimeout;

  @Option(
      names = "--workers",
      paramLabel = "N",
      description =
          "worker threads of every in-process server row (default: the preset's, "
              + "else each row's)")
  Integer workers;

  @Option(
      names = "--io-threads",
      paramLabel = "N",
      description =
          "IO threads of every in-process server row (default: the preset's, else "
              + "the processors)")
  Integer ioThreads;

  @Option(
      names = "--async-handler",
      description = "serve the async handler where a row takes an async processor")
  boolean asyncHandler;

  @Option(
      names = "--in-process",
      description =
          "run the quick preset's in-process matrix even where it would measure as "
              + "'efficiency' does (two or more CPUs and taskset)")
  boolean inProcess;

  @Override
  public Integer call() throws Exception {
    PrintWriter stdout = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (quickRunsEfficiency()) {
      Pinning pin = Pinning.decide(-1, -1);
      if (pin.pinned()) {
        err.println(
            "matrix: preset quick measures as 'efficiency' does (server and load"
                + " generator in separate JVMs on separate CPUs); --in-process runs the in-process"
                + " matrix instead");
        err.flush();
        return EfficiencyCommand.execute(
            EfficiencyCommand.quick(out != null ? out : defaultOut()), stdout, err);
      }
      err.println("matrix: preset quick runs in-process: " + pin.note());
      err.flush();
    }
    Rows rows = Rows.standard();
    MatrixPlan plan;
    try {
      plan = plan(rows);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    MatrixRunner runner = new MatrixRunner(rows, plan, tlsDir);
    int cells = runner.cells().size();
    double perCell = (plan.warmup().toMillis() + plan.duration().toMillis()) / 1000.0 + 0.3;
    if (plan.maxCalls() > 0) {
      // A count bounds the cells: no estimate before the first has run.
      err.printf(
          "matrix: preset %s, %d cells of %,d calls each (at most %s each); servers %s; clients"
              + " %s%n",
          plan.preset(),
          cells,
          plan.maxCalls(),
          Progress.clock(perCell),
          plan.servers(),
          plan.clients());
    } else {
      err.printf(
          "matrix: preset %s, %d cells, about %s; servers %s; clients %s%n",
          plan.preset(), cells, Progress.clock(cells * perCell), plan.servers(), plan.clients());
    }
    for (var e : rows.missingNames().entrySet()) {
      if (plan.servers().contains(e.getKey()) || plan.clients().contains(e.getKey())) {
        err.println("matrix: " + e.getKey() + " will be skipped: " + e.getValue());
      }
    }
    err.flush();
    Instant started = Instant.now();
    List<CellResult> results = runner.run(Progress.on(err, cells, perCell));
    if (Reports.isGuide(plan)) {
      stdout.println(Reports.GUIDE_CAPTION);
      stdout.println();
      stdout.print(Reports.guideTable(results, rows));
      stdout.println();
    }
    stdout.println(Reports.RESULTS_CAPTION);
    stdout.println();
    stdout.print(Reports.markdownTable(results));
    if (results.stream().anyMatch(r -> r.ran() && Reports.sleepMillis(r.size()) >= 0)) {
      stdout.println();
      stdout.println(Reports.RESPONSE_CAPTION);
      stdout.println();
      stdout.print(Reports.responseTable(results));
    }
    String skipped = Reports.skippedList(results);
    if (!skipped.isEmpty()) {
      stdout.println();
      stdout.println("Skipped:");
      stdout.print(skipped);
    }
    stdout.flush();
    Path dir = out != null ? out : defaultOut();
    List<Path> written = Reports.writeAll(dir, plan, results, started, rows);
    err.println("matrix: wrote " + written.size() + " files to " + dir.toAbsolutePath());
    long bad = results.stream().mapToLong(r -> r.errors() + r.checkFailures()).sum();
    if (bad > 0) {
      err.println("matrix: " + bad + " failed or corrupted calls; see the errors columns");
    }
    err.flush();
    return 0;
  }

  /**
   * Whether this is the bare quick preset (no option that shapes the matrix) and not {@code
   * --in-process}: where the machine can pin, it then runs {@link EfficiencyCommand#quick}.
   */
  boolean quickRunsEfficiency() {
    return preset.equals("quick")
        && !inProcess
        && servers == null
        && clients == null
        && sizes == null
        && protocols == null
        && connections == null
        && warmup == null
        && duration == null
        && target == null
        && targetServer == null
        && workers == null
        && ioThreads == null
        && maxCalls == null
        && inFlight == 1
        && poolSize == 0
        && !asyncHandler;
  }

  /** Resolves the preset and the options into a plan; validates every value. */
  MatrixPlan plan(Rows rows) {
    Presets p = Presets.of(preset);
    List<MatrixPlan.Grid> grids;
    if (sizes == null && protocols == null && connections == null) {
      // Explicit --clients replace the preset's, also where a grid names its own.
      grids =
          clients == null
              ? p.grids()
              : p.grids().stream().map(MatrixPlan.Grid::forEveryClient).toList();
    } else {
      // An explicit axis replaces the preset's grids with one cross product; the preset's first
      // grid supplies the axes not given.
      MatrixPlan.Grid base = p.grids().get(0);
      List<Workload> workloads = base.workloads();
      if (sizes != null) {
        workloads = new ArrayList<>();
        for (String s : sizes) {
          int size = Payloads.parseSize(s);
          if (size < 0 || size > MAX_SIZE) {
            throw new IllegalArgumentException("size: " + s + " (expected: 0.." + MAX_SIZE + ")");
          }
          workloads.add(Workload.echo(size));
        }
      }
      grids =
          List.of(
              new MatrixPlan.Grid(
                  workloads,
                  protocols != null ? List.copyOf(protocols) : base.protocols(),
                  connections != null ? List.copyOf(connections) : base.connections()));
    }
    for (MatrixPlan.Grid g : grids) {
      g.protocols().forEach(Protocols::factory);
      for (int c : g.connections()) {
        if (c < 1 || c > 10_000) {
          throw new IllegalArgumentException("connections: " + c + " (expected: 1..10000)");
        }
      }
    }
    List<String> serverNames;
    if (target != null) {
      String label = targetServer;
      if (label == null) {
        if (servers != null && servers.size() == 1) {
          label = servers.get(0);
        } else if (servers != null) {
          throw new IllegalArgumentException(
              "servers: " + servers + " (expected: one name with --target, the row it runs)");
        } else {
          label = "target";
        }
      }
      serverNames = List.of(label);
    } else {
      serverNames = rows.expandServers(servers != null ? servers : p.servers());
    }
    List<String> clientNames = rows.expandClients(clients != null ? clients : p.clients());
    Duration w = warmup != null ? warmup : p.warmup();
    Duration d = duration != null ? duration : p.duration();
    if (d.isZero()) {
      throw new IllegalArgumentException("duration: 0s (expected: > 0)");
    }
    if (callTimeout.isZero()) {
      throw new IllegalArgumentException("call-timeout: 0s (expected: > 0)");
    }
    if (inFlight < 1 || inFlight > 1024) {
      throw new IllegalArgumentException("in-flight: " + inFlight + " (expected: 1..1024)");
    }
    if (poolSize < 0 || poolSize > 10_000) {
      throw new IllegalArgumentException("pool-size: " + poolSize + " (expected: 0..10000)");
    }
    long calls = maxCalls != null ? maxCalls : p.calls();
    if (calls < 0) {
      throw new IllegalArgumentException("calls: " + calls + " (expected: >= 0)");
    }
    Integer serverWorkers = workers != null ? workers : p.serverWorkers();
    Integer serverIo = ioThreads != null ? ioThreads : p.serverIoThreads();
    if (serverWorkers != null && (serverWorkers < 1 || serverWorkers > 100_000)) {
      throw new IllegalArgumentException("workers: " + serverWorkers + " (expected: 1..100000)");
    }
    if (serverIo != null && (serverIo < 1 || serverIo > 1024)) {
      throw new IllegalArgumentException("io-threads: " + serverIo + " (expected: 1..1024)");
    }
    boolean custom =
        servers != null
            || clients != null
            || sizes != null
            || protocols != null
            || connections != null;
    return new MatrixPlan(
        custom ? preset + "+options" : preset,
        serverNames,
        clientNames,
        grids,
        inFlight,
        poolSize != 0 ? poolSize : p.poolSize(),
        w,
        d,
        calls,
        callTimeout,
        serverWorkers,
        serverIo,
        asyncHandler,
        target);
  }

  /**
   * {@code it/target/matrix}: beside the jar ({@code it/target/thrift-nio-bench.jar}) or the
   * classes folder ({@code it/target/classes}) this runs from, else relative to the working
   * directory.
   */
  static Path defaultOut() {
    return defaultOut("matrix");
  }

  /** {@code it/target/LEAF}, found as {@link #defaultOut()} finds {@code it/target/matrix}. */
  static Path defaultOut(String leaf) {
    try {
      Path code =
          Paths.get(
              MatrixCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path parent = code.getParent();
      if (parent != null
          && parent.getFileName() != null
          && parent.getFileName().toString().equals("target")
          && Files.isDirectory(parent)) {
        return parent.resolve(leaf);
      }
    } catch (URISyntaxException | RuntimeException e) {
      // No usable code source (an unusual class loader): fall back to the working directory.
    }
    return Paths.get("it", "target", leaf);
  }
}
