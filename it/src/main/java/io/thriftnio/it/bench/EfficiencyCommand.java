package io.thriftnio.it.bench;

import io.thriftnio.core.WireKind;
import io.thriftnio.testkit.Payloads;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code efficiency}: what a call costs the server and the client, each in its own process on its
 * own CPU.
 *
 * <p>Every server row runs as a {@code serve --control} child JVM pinned with {@code taskset -c} to
 * one CPU; the load generator is this command re-run in a child JVM pinned to another CPU (so that
 * every one of its threads, JIT and GC included, is born there, and the JVM that started it stays
 * unpinned). Where {@code taskset} is missing or fewer than two CPUs are allowed, both run
 * unpinned, the load generator in this JVM, and the reports say so.
 *
 * <p>Per cell (a server row under one client shape) and round: calls/s, p50/p99 latency, the
 * server's and the load generator's CPU time over the measured window ({@code utime + stime} of
 * {@code /proc/PID/stat}: every thread of the process) divided by the calls completed in it, and
 * the server's heap allocation per call (its live threads' allocation counters, read over {@code
 * serve}'s control channel). Rounds are interleaved across rows (round 1 runs every row, then round
 * 2 ...), each row in a fresh server JVM each round; every reported number is the median over the
 * rounds.
 */
@Command(
    name = "efficiency",
    mixinStandardHelpOptions = true,
    versionProvider = BenchMain.Version.class,
    sortOptions = false,
    description = {
      "Measures server and client CPU per call, calls/s, p50/p99 and server allocation per call,"
          + " with each server row in a child JVM pinned to one CPU and the load generator pinned"
          + " to another (taskset).",
      "Scenarios: tsocket-40 (40 blocking TSocket clients), async-8x32 (8 netty-async"
          + " connections x 32 calls in flight), seq-1 (one TSocket, sequential calls),"
          + " client-transports (one connection, sequential calls against thrift-threadpool from"
          + " tsocket, netty-sync and grizzly-sync), http-40 (40 blocking THttpClients, against"
          + " the rows that serve HTTP: the library's, started with --transports framed,http, and"
          + " thrift-servlet and armeria, named only). --wire header adds THeader twins of tsocket-40,"
          + " async-8x32 and seq-1 (tsocket-40-header, ...), the same clients over THeader.",
      "TLS rows (netty-tls/..., netty-openssl/..., grizzly-tls/..., named only): one fresh CA per"
          + " run in a temporary directory, passed to each serve child as --tls-dir; the clients"
          + " speak TLS and trust it.",
      "Equal load (--rates, --pipelined-rates, --at-load): open-loop runs instead of the"
          + " scenarios, every row offered the same calls/s or a share of its own maximum; writes"
          + " equal-load.md and equal-load.csv.",
      "Prints a Markdown table on stdout and writes results.csv, results.json, report.md and PNG"
          + " charts to --out; a progress line per cell goes to stderr."
    })
final class EfficiencyCommand implements Callable<Integer> {

  /** The server rows measured by default. */
  static final List<String> DEFAULT_SERVERS =
      List.of(
          "netty/same-thread",
          "netty/worker",
          "grizzly/same-thread",
          "grizzly/worker",
          "grizzly/leader-follower",
          "thrift-threadpool",
          "thrift-nonblocking",
          "thrift-threaded-selector",
          "raw-echo");

  /** The limit of one call before it counts as an error. */
  static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--servers",
      split = ",",
      paramLabel = "S",
      description =
          "server rows: ours, stock, peers, netty, grizzly, netty/worker, raw-echo, ...; by "
              + "name only: netty-nio/..., netty-tls/..., netty-openssl/..., grizzly-tls/..., "
              + "drift (Drift 1.22, in a JDK >= 21 child), armeria (Armeria 1.33.1's"
              + " THttpService, HTTP only: http-40), the gRPC-java peers grpc/direct, "
              + "grpc/default (drift, armeria and both: peers), grpc-tls/... "
              + "(called by the grpc client in each scenario's shape) "
              + "(default: the library's five rows, thrift-threadpool, thrift-nonblocking, "
              + "thrift-threaded-selector and raw-echo)")
  List<String> servers;

  @Option(
      names = "--scenarios",
      split = ",",
      paramLabel = "NAME",
      defaultValue = "all",
      description =
          "all, tsocket-40, async-8x32, seq-1, client-transports, http-40; named only:"
              + " drift-40 (40 blocking Drift clients; the load generator runs on a JDK >= 21)"
              + " (default: ${DEFAULT-VALUE})")
  List<String> scenarios;

  @Option(
      names = "--wire",
      split = ",",
      paramLabel = "W",
      defaultValue = "framed",
      description =
          "framed, header, sasl, or several side by side (framed,header,sasl): what the scenarios'"
              + " clients speak. sasl twins them the same way over PLAIN with QOP auth"
              + " (tsocket-sasl: libthrift's TSaslClientTransport; netty-async-sasl)."
              + " header runs tsocket-40, async-8x32 and seq-1 as tsocket-40-header (the stock"
              + " TSocket under the bench's own THeader transport), async-8x32-header"
              + " (netty-async-header) and seq-1-header, against the rows that serve THeader"
              + " (the library's; the others skip them with the reason) (default: ${DEFAULT-VALUE})")
  List<String> wire;

  @Option(
      names = "--rounds",
      paramLabel = "N",
      defaultValue = "3",
      description = "rounds over every row; the median is reported (default: ${DEFAULT-VALUE})")
  int rounds;

  @Option(
      names = "--warmup",
      paramLabel = "D",
      defaultValue = "2s",
      converter = Cli.DurationConverter.class,
      description =
          "load before each measurement; a fresh server JVM's first cell gets twice "
              + "this (default: ${DEFAULT-VALUE})")
  Duration warmup;

  @Option(
      names = "--warmup-calls",
      paramLabel = "N",
      defaultValue = "10000",
      description =
          "calls each warm-up must also complete, so that a server starved by other "
              + "load has compiled its hot path; the warm-up stretches to at most 4 times its "
              + "duration for them (default: ${DEFAULT-VALUE})")
  long warmupCalls;

  @Option(
      names = "--duration",
      paramLabel = "D",
      defaultValue = "5s",
      converter = Cli.DurationConverter.class,
      description =
          "measured window per cell; CPU time comes in 10 ms ticks, so several seconds "
              + "(default: ${DEFAULT-VALUE})")
  Duration duration;

  @Option(
      names = "--size",
      paramLabel = "SIZE",
      defaultValue = "300",
      description = "echo payload bytes, e.g. 300, 3k (default: ${DEFAULT-VALUE})")
  String size;

  @Option(
      names = "--protocol",
      paramLabel = "P",
      defaultValue = "compact",
      description = "binary, compact or json (default: ${DEFAULT-VALUE})")
  String protocol;

  @Option(
      names = "--io-threads",
      paramLabel = "N[,N...]",
      split = ",",
      description =
          "IO / selector threads of every server row (default: 1); several counts run the whole"
              + " measurement once per count, each into <out>/io<N>, for a scaling study")
  List<Integer> ioThreadCounts = List.of(1);

  /** The IO thread count of the run being resolved: one of {@link #ioThreadCounts}. */
  int ioThreads = 1;

  @Option(
      names = "--workers",
      paramLabel = "N",
      description =
          "worker threads of every server row (default: each row's own, 64 for the "
              + "library's rows and the stock worker pools)")
  Integer workers;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "output folder (default: it/target/efficiency)")
  Path out;

  @Option(
      names = "--rates",
      split = ",",
      paramLabel = "R",
      description =
          "equal load: open-loop runs at these calls/s over --rate-connections connections"
              + " (open-<connections>), e.g. 10000,40000 or 10k,40k; calls leave on a fixed"
              + " schedule and latency counts from each call's due time. With --rates,"
              + " --pipelined-rates or --at-load the run measures these instead of --scenarios")
  List<String> rates;

  @Option(
      names = "--pipelined-rates",
      split = ",",
      paramLabel = "R",
      description = "equal load: open-loop calls/s over 8 connections (open-8), e.g. 100k")
  List<String> pipelinedRates;

  @Option(
      names = "--at-load",
      split = ",",
      paramLabel = "P",
      description =
          "latency at load: percents of each row's own maximum (a closed-loop probe per shape:"
              + " open-<connections> at 1 call in flight per connection, open-8 at 32), each run"
              + " open-loop, e.g. 50,80")
  List<String> atLoad;

  @Option(
      names = "--rate-connections",
      paramLabel = "N",
      defaultValue = "40",
      description = "connections of the open-loop shape of --rates (default: ${DEFAULT-VALUE})")
  int rateConnections;

  @Option(
      names = "--rate-client",
      paramLabel = "K",
      description =
          "client kind of every open-loop run; its lanes must be async (default: each row's own,"
              + " netty-async for Thrift rows)")
  String rateClient;

  @Option(
      names = "--client-cpu",
      paramLabel = "N",
      defaultValue = "-1",
      description = "CPU of the load generator (default: the first CPU this process may use)")
  int clientCpu;

  @Option(
      names = "--server-cpu",
      paramLabel = "N",
      defaultValue = "-1",
      description = "CPU of every server child (default: the second CPU this process may use)")
  int serverCpu;

  @Option(
      names = "--no-pin",
      description = "run unpinned, the load generator in this JVM, even where taskset could pin")
  boolean noPin;

  @Option(
      names = "--grpc-callers",
      paramLabel = "M",
      defaultValue = "threads",
      description =
          "how the grpc client keeps one call in flight per channel on the grpc rows (tsocket-40,"
              + " seq-1): threads, a caller thread per channel blocking on its call (tsocket's"
              + " shape), or event-loop, each next call started from the completion of the last on"
              + " the client's event loop (kind grpc-loop): the same load on the server for less"
              + " client CPU (default: ${DEFAULT-VALUE})")
  String grpcCallers;

  @Option(
      names = "--pinned-child",
      hidden = true,
      description = "this JVM is the load generator, already pinned to --client-cpu")
  boolean pinnedChild;

  @Option(
      names = "--label",
      hidden = true,
      defaultValue = "efficiency",
      description = "the run's name in the reports")
  String label;

  @Override
  public Integer call() throws Exception {
    List<Settings> runs = new ArrayList<>();
    try {
      if (ioThreadCounts.isEmpty()) {
        throw new IllegalArgumentException("io-threads: none (expected: 1..1024, comma-separated)");
      }
      Path base = out;
      for (int n : ioThreadCounts) {
        ioThreads = n;
        if (ioThreadCounts.size() > 1) {
          // One run per count, each in a folder of its own: the reports name the count there.
          out = (base != null ? base : MatrixCommand.defaultOut("efficiency")).resolve("io" + n);
        }
        runs.add(settings());
      }
      out = base;
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    int status = 0;
    for (Settings settings : runs) {
      if (runs.size() > 1) {
        spec.commandLine()
            .getErr()
            .println("efficiency: io-threads " + settings.ioThreads() + " into " + settings.out());
      }
      status =
          Math.max(
              status, execute(settings, spec.commandLine().getOut(), spec.commandLine().getErr()));
    }
    return status;
  }

  /**
   * A resolved, validated run.
   *
   * @param servers server rows, expanded
   * @param scenarios scenario names
   * @param shapes the client shapes of those scenarios, in run order
   * @param equalLoad the open-loop runs that replace the scenarios, or {@code null} for none
   */
  record Settings(
      String label,
      List<String> servers,
      List<String> scenarios,
      List<String> wire,
      List<EfficiencyScenario> shapes,
      int rounds,
      Duration warmup,
      long warmupCalls,
      Duration duration,
      int size,
      String protocol,
      int ioThreads,
      Integer workers,
      Path out,
      int clientCpu,
      int serverCpu,
      boolean noPin,
      boolean pinnedChild,
      boolean grpcLoop,
      EqualLoad equalLoad) {

    /** The command line that re-runs these settings as the pinned load generator. */
    List<String> childArgs(Pinning pin) {
      List<String> args =
          new ArrayList<>(
              List.of(
                  "efficiency",
                  "--servers",
                  String.join(",", servers),
                  "--scenarios",
                  String.join(",", scenarios),
                  "--wire",
                  String.join(",", wire),
                  "--rounds",
                  Integer.toString(rounds),
                  "--warmup",
                  warmup.toMillis() + "ms",
                  "--warmup-calls",
                  Long.toString(warmupCalls),
                  "--duration",
                  duration.toMillis() + "ms",
                  "--size",
                  Integer.toString(size),
                  "--protocol",
                  protocol,
                  "--io-threads",
                  Integer.toString(ioThreads),
                  "--out",
                  out.toAbsolutePath().toString(),
                  "--client-cpu",
                  Integer.toString(pin.clientCpu()),
                  "--server-cpu",
                  Integer.toString(pin.serverCpu()),
                  "--label",
                  label,
                  "--pinned-child"));
      if (workers != null) {
        args.add("--workers");
        args.add(Integer.toString(workers));
      }
      if (grpcLoop) {
        args.add("--grpc-callers");
        args.add("event-loop");
      }
      if (equalLoad != null) {
        args.addAll(equalLoad.args());
      }
      return args;
    }

    /** About how long the run takes, in seconds: cells, plus a server start per row and round. */
    double estimateSeconds() {
      double cell = (warmup.toMillis() + duration.toMillis()) / 1000.0 + 0.3;
      long starts =
          servers.stream().filter(s -> shapes.stream().anyMatch(sh -> sh.runsOn(s))).count();
      double start = 1.5 + warmup.toMillis() / 1000.0;
      return rounds * (cells() * cell + starts * start);
    }

    /** Cells per round. */
    int cells() {
      int n = 0;
      for (String s : servers) {
        n += (int) shapes.stream().filter(sh -> sh.runsOn(s)).count();
      }
      return n;
    }
  }

  Settings settings() {
    Rows rows = Rows.standard();
    List<String> serverNames = rows.expandServers(servers != null ? servers : DEFAULT_SERVERS);
    List<EfficiencyScenario> shapes = EfficiencyScenario.resolve(scenarios, wire);
    Protocols.factory(protocol);
    int bytes = Payloads.parseSize(size);
    if (bytes < 0 || bytes > MatrixCommand.MAX_SIZE) {
      throw new IllegalArgumentException(
          "size: " + size + " (expected: 0.." + MatrixCommand.MAX_SIZE + ")");
    }
    if (rounds < 1 || rounds > 100) {
      throw new IllegalArgumentException("rounds: " + rounds + " (expected: 1..100)");
    }
    if (duration.isZero()) {
      throw new IllegalArgumentException("duration: 0s (expected: > 0)");
    }
    if (ioThreads < 1 || ioThreads > 1024) {
      throw new IllegalArgumentException("io-threads: " + ioThreads + " (expected: 1..1024)");
    }
    if (workers != null && (workers < 1 || workers > 100_000)) {
      throw new IllegalArgumentException("workers: " + workers + " (expected: 1..100000)");
    }
    if (pinnedChild && (clientCpu < 0 || serverCpu < 0)) {
      throw new IllegalArgumentException(
          "pinned-child: needs --client-cpu and --server-cpu (got "
              + clientCpu
              + ", "
              + serverCpu
              + ")");
    }
    if (warmupCalls < 0) {
      throw new IllegalArgumentException("warmup-calls: " + warmupCalls + " (expected: >= 0)");
    }
    if (grpcCallers != null && !List.of("threads", "event-loop").contains(grpcCallers)) {
      throw new IllegalArgumentException(
          "grpc-callers: " + grpcCallers + " (expected: threads or event-loop)");
    }
    return new Settings(
        label,
        serverNames,
        List.copyOf(scenarios),
        List.copyOf(wire),
        shapes,
        rounds,
        warmup,
        warmupCalls,
        duration,
        bytes,
        protocol,
        ioThreads,
        workers,
        out != null ? out : MatrixCommand.defaultOut("efficiency"),
        clientCpu,
        serverCpu,
        noPin,
        pinnedChild,
        "event-loop".equals(grpcCallers),
        EqualLoad.parse(rates, pipelinedRates, atLoad, rateConnections, rateClient));
  }

  /**
   * The main job's measurement ({@code matrix --preset quick} where it can pin): every default row
   * and the framed clients' scenarios, two rounds of 1 s warm-up (longer while the server's JIT is
   * busy) and 2 s measurement, about six minutes.
   */
  static Settings quick(Path out) {
    EfficiencyCommand c = new EfficiencyCommand();
    c.scenarios = EfficiencyScenario.FRAMED_NAMES;
    c.wire = List.of("framed");
    c.rounds = 2;
    c.warmup = Duration.ofSeconds(1);
    c.warmupCalls = 10_000;
    c.duration = Duration.ofSeconds(2);
    c.size = "300";
    c.protocol = "compact";
    c.ioThreads = 1;
    c.out = out;
    c.clientCpu = -1;
    c.serverCpu = -1;
    c.label = "quick";
    return c.settings();
  }

  /**
   * Runs {@code settings}: re-runs itself as a pinned child where it can pin, else measures here.
   *
   * @return the exit status
   */
  static int execute(Settings settings, PrintWriter out, PrintWriter err)
      throws IOException, InterruptedException {
    Pinning pin;
    if (settings.noPin()) {
      pin = Pinning.unpinned("--no-pin");
    } else if (settings.pinnedChild()) {
      pin =
          Pinning.pinned(settings.clientCpu(), settings.serverCpu(), Pinning.findOnPath("taskset"));
    } else {
      pin = Pinning.decide(settings.clientCpu(), settings.serverCpu());
    }
    if (pin.pinned() && !settings.pinnedChild()) {
      return runPinnedChild(settings, pin, out, err);
    }
    if (!pin.pinned()) {
      err.println("efficiency: " + pin.note());
    }
    return measure(settings, pin, out, err);
  }

  /** Re-runs the command in a child JVM pinned to the client CPU; copies its output to ours. */
  private static int runPinnedChild(
      Settings settings, Pinning pin, PrintWriter out, PrintWriter err)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(pin.clientPrefix());
    // A JDK >= 21 where a scenario's client is Drift's (its classes need it).
    command.add(DriftRows.loadGeneratorJava(settings.shapes()));
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(BenchMain.class.getName());
    command.addAll(settings.childArgs(pin));
    err.println(
        "efficiency: "
            + pin.note()
            + "; the load generator is a child JVM on CPU "
            + pin.clientCpu());
    err.flush();
    Process child = new ProcessBuilder(command).start();
    // SIGTERM to this JVM ends the load generator too (it then closes its server children).
    Thread stopChild = new Thread(child::destroy, "bench-efficiency-stop-child");
    Runtime.getRuntime().addShutdownHook(stopChild);
    child.getOutputStream().close();
    Thread copyOut = copier(child.getInputStream(), out, "bench-efficiency-stdout");
    Thread copyErr = copier(child.getErrorStream(), err, "bench-efficiency-stderr");
    try {
      int status = child.waitFor();
      copyOut.join();
      copyErr.join();
      return status;
    } catch (InterruptedException e) {
      child.destroy();
      throw e;
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(stopChild);
      } catch (IllegalStateException e) {
        // This JVM is shutting down already: the hook is running or has run.
      }
    }
  }

  private static Thread copier(InputStream from, PrintWriter to, String name) {
    Thread t =
        new Thread(
            () -> {
              try (Reader r = new InputStreamReader(from, StandardCharsets.UTF_8)) {
                char[] buf = new char[8192];
                int n;
                while ((n = r.read(buf)) >= 0) {
                  to.write(buf, 0, n);
                  to.flush();
                }
              } catch (IOException e) {
                to.println("efficiency: lost the load generator's output: " + e);
                to.flush();
              }
            },
            name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** Measures every cell in this JVM, the load generator. */
  static int measure(Settings s, Pinning pin, PrintWriter out, PrintWriter err)
      throws IOException, InterruptedException {
    if (s.equalLoad() != null) {
      return EqualLoadRun.measure(s, pin, out, err);
    }
    Rows rows = Rows.standard();
    BenchTls tls = null;
    if (s.servers().stream().map(rows::server).anyMatch(r -> r != null && r.tls())) {
      try {
        // One CA for the whole run: every serve child gets the directory, the clients trust it.
        tls = BenchTls.generate(Files.createTempDirectory("thrift-nio-bench-tls"));
      } catch (GeneralSecurityException e) {
        throw new IOException("cannot make the TLS rows' certificates: " + e.getMessage(), e);
      }
    }
    int perRound = s.cells();
    int total = perRound * s.rounds();
    err.printf(
        Locale.ROOT,
        "efficiency: %d servers, %d cells x %d rounds, about %s; %s%n",
        s.servers().size(),
        perRound,
        s.rounds(),
        Progress.clock(s.estimateSeconds()),
        pin.note());
    err.flush();
    Map<String, List<EfficiencyResult.Sample>> samples = new LinkedHashMap<>();
    Map<String, String> skipped = new LinkedHashMap<>();
    Instant started = Instant.now();
    long t0 = System.nanoTime();
    int done = 0;
    for (int round = 1; round <= s.rounds(); round++) {
      for (String server : s.servers()) {
        List<EfficiencyScenario> mine =
            s.shapes().stream()
                .filter(sh -> sh.runsOn(server))
                .map(sh -> sh.on(rows.server(server), s.grpcLoop()))
                .toList();
        if (mine.isEmpty()) {
          continue;
        }
        String cannot =
            rows.server(server) == null
                ? (rows.missing(server) != null
                    ? rows.missing(server)
                    : server + " is not a row of this build")
                : null;
        Map<EfficiencyScenario, String> mismatches = new LinkedHashMap<>();
        if (cannot == null) {
          for (EfficiencyScenario shape : mine) {
            ClientKindRow kind = rows.client(shape.client());
            String why = kind != null ? ClientKindRow.mismatch(rows.server(server), kind) : null;
            if (why != null) {
              mismatches.put(shape, why);
            }
          }
        }
        ServeProcess serve = null;
        if (cannot == null && mismatches.size() < mine.size()) {
          try {
            serve =
                ServeProcess.start(
                    pin.serverPrefix(),
                    rows.server(server).childJava(),
                    List.of(),
                    serveArgs(
                        s,
                        server,
                        rows.server(server).tls() ? tls : null,
                        MatrixRunner.wireKinds(
                            rows.server(server),
                            mine.stream().map(sh -> rows.client(sh.client())).toList())));
          } catch (IOException e) {
            cannot = "cannot start " + server + ": " + MatrixRunner.message(e);
          }
        }
        try {
          boolean first = true;
          for (EfficiencyScenario shape : mine) {
            String key = key(server, shape);
            samples.computeIfAbsent(key, k -> new ArrayList<>());
            done++;
            String why = cannot != null ? cannot : mismatches.get(shape);
            EfficiencyResult.Sample sample = null;
            if (why == null) {
              Object r = runCell(rows, s, pin, server, shape, serve, first, tls);
              first = false;
              if (r instanceof EfficiencyResult.Sample) {
                sample = (EfficiencyResult.Sample) r;
              } else {
                why = (String) r;
              }
            }
            if (sample != null) {
              samples.get(key).add(sample);
            } else {
              skipped.putIfAbsent(key, why);
            }
            progress(err, t0, done, total, round, s.rounds(), server, shape, sample, why);
          }
        } finally {
          if (serve != null) {
            serve.close();
          }
        }
      }
    }
    List<EfficiencyResult> results = new ArrayList<>();
    for (String server : s.servers()) {
      for (EfficiencyScenario planned : s.shapes()) {
        EfficiencyScenario shape = planned.on(rows.server(server), s.grpcLoop());
        String key = key(server, shape);
        if (samples.containsKey(key)) {
          results.add(new EfficiencyResult(server, shape, samples.get(key), skipped.get(key)));
        }
      }
    }
    out.print(EfficiencyReports.markdownTables(results));
    out.flush();
    List<Path> written = EfficiencyReports.writeAll(s.out(), s, pin, results, started);
    err.println("efficiency: wrote " + written.size() + " files to " + s.out().toAbsolutePath());
    // Last on stderr, where it is seen: a busy machine makes every ratio above unreliable.
    err.print(LoadMarks.banner(results));
    long bad = results.stream().mapToLong(EfficiencyResult::errors).sum();
    if (bad > 0) {
      err.println("efficiency: " + bad + " failed or corrupted calls; see the errors column");
    }
    err.flush();
    return 0;
  }

  static List<String> serveArgs(Settings s, String server, BenchTls tls, Set<WireKind> transports) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--server",
                server,
                "--protocol",
                s.protocol(),
                "--io-threads",
                Integer.toString(s.ioThreads())));
    if (s.workers() != null) {
      args.add("--workers");
      args.add(Integer.toString(s.workers()));
    }
    if (!transports.equals(EnumSet.of(WireKind.FRAMED))) {
      args.add("--transports");
      args.add(
          String.join(
              ",", transports.stream().map(t -> t.name().toLowerCase(Locale.ROOT)).toList()));
    }
    if (tls != null) {
      args.add("--tls-dir");
      args.add(tls.dir().toString());
    }
    return args;
  }

  static String key(String server, EfficiencyScenario shape) {
    return server + "|" + shape.name() + "|" + shape.client();
  }

  /** Runs one cell; returns its {@link EfficiencyResult.Sample}, or why it could not run. */
  private static Object runCell(
      Rows rows,
      Settings s,
      Pinning pin,
      String server,
      EfficiencyScenario shape,
      ServeProcess serve,
      boolean firstOfServer,
      BenchTls tls)
      throws InterruptedException {
    ServerRow row = rows.server(server);
    ClientKindRow kind = rows.client(shape.client());
    if (kind == null) {
      String missing = rows.missing(shape.client());
      return missing != null ? missing : shape.client() + " is not a client kind of this build";
    }
    CellSpec cell =
        new CellSpec(
            server,
            shape.client(),
            Workload.echo(s.size()),
            s.protocol(),
            shape.connections(),
            shape.inFlight(),
            0,
            row.rawEcho(),
            firstOfServer ? s.warmup().multipliedBy(2) : s.warmup(),
            s.duration(),
            0,
            CALL_TIMEOUT,
            row.tls() ? tls.clientTls() : null);
    String why = row.cannotServe(cell);
    if (why == null) {
      why = kind.cannotRun(cell);
    }
    if (why != null) {
      return why;
    }
    ClientLoad load;
    try {
      load = kind.open(cell, serve.address());
    } catch (Exception e) {
      return "cannot connect "
          + shape.client()
          + " to "
          + serve.address()
          + ": "
          + MatrixRunner.message(e);
    }
    Sampler sampler = new Sampler(serve, pin, s.warmupCalls());
    CellResult r = LoadEngine.run(cell, load, sampler);
    if (sampler.failure != null) {
      return "cannot sample the server's CPU: " + MatrixRunner.message(sampler.failure);
    }
    return new EfficiencyResult.Sample(
        r.calls(),
        r.seconds(),
        sampler.serverCpu,
        sampler.clientCpu,
        sampler.serverAlloc,
        r.p50Us(),
        r.p99Us(),
        r.errors(),
        r.checkFailures(),
        sampler.otherOnServerCpu,
        sampler.otherOnClientCpu);
  }

  private static void progress(
      PrintWriter err,
      long t0,
      int done,
      int total,
      int round,
      int rounds,
      String server,
      EfficiencyScenario shape,
      EfficiencyResult.Sample sample,
      String why) {
    double elapsed = (System.nanoTime() - t0) / 1e9;
    double eta = elapsed / done * (total - done);
    String head =
        String.format(
            Locale.ROOT,
            "[%s elapsed, ETA %s] round %d/%d cell %d/%d %s %s" + " (%s): ",
            Progress.clock(elapsed),
            Progress.clock(eta),
            round,
            rounds,
            done,
            total,
            server,
            shape.name(),
            shape.shape());
    if (sample == null) {
      err.println(head + "skipped: " + why);
    } else {
      err.println(
          head
              + String.format(
                  Locale.ROOT,
                  "%,.0f calls/s, server %.1f us/call, client %.1f us/call, p50 %,d us, p99 %,d us,"
                      + " alloc %,.0f B/call%s%s",
                  sample.callsPerSec(),
                  sample.serverUsPerCall(),
                  sample.clientUsPerCall(),
                  sample.p50Us(),
                  sample.p99Us(),
                  sample.serverAllocPerCall(),
                  Double.isNaN(sample.otherOnServerCpu())
                      ? ""
                      : String.format(
                          Locale.ROOT,
                          "; other load on server CPU %.0f%%, client CPU %.0f%%",
                          100 * sample.otherOnServerCpu(),
                          100 * sample.otherOnClientCpu()),
                  sample.errors() + sample.checkFailures() > 0
                      ? ", errors " + sample.errors() + " bad " + sample.checkFailures()
                      : ""));
    }
    err.flush();
  }

  /**
   * Samples the server's and this process's CPU time and the server's allocation at the edges of
   * the measured window.
   */
  static final class Sampler implements LoadEngine.Window {
    private final ServeProcess serve;
    private final Pinning pin;
    private final long warmupCalls;
    private final long self = ProcessHandle.current().pid();
    private long serverCpu;
    private long clientCpu;
    private long serverAlloc;
    private long serverCpuBusy;
    private long clientCpuBusy;
    private long windowStart;
    private double otherOnServerCpu = Double.NaN;
    private double otherOnClientCpu = Double.NaN;
    private Exception failure;
    private long jitCpu;
    private long jitSampledAt;
    private boolean jitQuiet;

    /** A JIT below this share of one CPU is quiet: a stray compilation, not start-up. */
    static final double QUIET_JIT_SHARE = 0.02;

    /** How often the warm-up looks at the server's JIT, in milliseconds. */
    static final long QUIET_JIT_INTERVAL_MS = 250;

    Sampler(ServeProcess serve, Pinning pin, long warmupCalls) {
      this.serve = serve;
      this.pin = pin;
      this.warmupCalls = warmupCalls;
    }

    @Override
    public long warmupCalls() {
      return warmupCalls;
    }

    /**
     * The server's JIT compiler threads used under {@value #QUIET_JIT_SHARE} of a CPU over the last
     * {@value #QUIET_JIT_INTERVAL_MS} ms; always where there is no {@code /proc}.
     */
    @Override
    public boolean settled() {
      long now = System.nanoTime();
      if (jitSampledAt != 0 && now - jitSampledAt < QUIET_JIT_INTERVAL_MS * 1_000_000L) {
        return jitQuiet;
      }
      long jit = ProcStat.compilerThreadsCpuNanos(serve.pid());
      if (jit < 0) {
        return true;
      }
      if (jitSampledAt != 0) {
        jitQuiet = jit - jitCpu < QUIET_JIT_SHARE * (now - jitSampledAt);
      }
      jitCpu = jit;
      jitSampledAt = now;
      return jitQuiet;
    }

    @Override
    public void opening() {
      try {
        ServeProcess.CpuSample c = serve.cpu();
        serverCpu = serverCpu(c);
        serverAlloc = c.allocatedBytes();
        clientCpu = clientCpu();
        if (pin.pinned()) {
          serverCpuBusy = ProcStat.cpuBusyNanos(pin.serverCpu());
          clientCpuBusy = ProcStat.cpuBusyNanos(pin.clientCpu());
        }
        windowStart = System.nanoTime();
      } catch (IOException e) {
        failure = e;
      }
    }

    @Override
    public void closed() {
      if (failure != null) {
        return;
      }
      try {
        long client = clientCpu();
        ServeProcess.CpuSample c = serve.cpu();
        long server = serverCpu(c);
        serverCpu = server < 0 || serverCpu < 0 ? -1 : server - serverCpu;
        clientCpu = client < 0 || clientCpu < 0 ? -1 : client - clientCpu;
        serverAlloc =
            c.allocatedBytes() < 0 || serverAlloc < 0 ? -1 : c.allocatedBytes() - serverAlloc;
        if (pin.pinned()) {
          // What the pinned CPU did besides our process: other load on a shared machine.
          double window = System.nanoTime() - windowStart;
          otherOnServerCpu =
              other(serverCpuBusy, ProcStat.cpuBusyNanos(pin.serverCpu()), serverCpu, window);
          otherOnClientCpu =
              other(clientCpuBusy, ProcStat.cpuBusyNanos(pin.clientCpu()), clientCpu, window);
        }
      } catch (IOException e) {
        failure = e;
      }
    }

    /** Why sampling failed, or {@code null}. */
    Exception failure() {
      return failure;
    }

    /** This window's costs beside the given load figures, as one round's sample. */
    EfficiencyResult.Sample sample(
        long calls, double seconds, long p50Us, long p99Us, long errors, long checkFailures) {
      return new EfficiencyResult.Sample(
          calls,
          seconds,
          serverCpu,
          clientCpu,
          serverAlloc,
          p50Us,
          p99Us,
          errors,
          checkFailures,
          otherOnServerCpu,
          otherOnClientCpu);
    }

    private static double other(long busyBefore, long busyAfter, long ours, double window) {
      if (busyBefore < 0 || busyAfter < 0 || ours < 0 || window <= 0) {
        return Double.NaN;
      }
      // Ticks of /proc/stat and of the process round apart: a share just past 1 is 1.
      return Math.min(1, Math.max(0, busyAfter - busyBefore - ours) / window);
    }

    /** {@code /proc/PID/stat} of the child; its own JVM's count where there is no /proc. */
    private long serverCpu(ServeProcess.CpuSample c) {
      long nanos = ProcStat.cpuNanos(serve.pid());
      return nanos >= 0 ? nanos : c.processCpuNanos();
    }

    private long clientCpu() {
      long nanos = ProcStat.cpuNanos(self);
      return nanos >= 0 ? nanos : JvmStats.processCpuNanos();
    }
  }
}
