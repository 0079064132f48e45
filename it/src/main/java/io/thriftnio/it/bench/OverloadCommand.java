package io.thriftnio.it.bench;

import io.thriftnio.core.WireKind;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code overload}: what each server row does when offered more than it can do. Per handler and
 * row: the row's own capacity (closed loop, calls/s at saturation), then open-loop load at 0.5x,
 * 1x, 1.5x, 2x and 3x of it from callers that send a deadline and give up at it.
 *
 * <p>Each row runs as a {@code serve --handler H} child pinned to one CPU, the load generator (this
 * command, re-run) to another, so that the generator can outrun the server: the handler has real
 * work, and the report gives the generator's send lag so that a reader can check it kept the
 * schedule.
 */
@Command(
    name = "overload",
    mixinStandardHelpOptions = true,
    versionProvider = BenchMain.Version.class,
    description = {
      "Offers each server row 0.5x to 3x its own measured capacity, open loop, from callers that"
          + " send a deadline and give up at it; reports goodput (answered in time), p50/p99 of"
          + " the answered calls, calls refused (not run, or shed at their deadline), timed out at"
          + " the client, and handler runs that started after their deadline.",
      "Server rows run in child JVMs pinned to one CPU, the load generator pinned to another"
          + " (taskset)."
    })
final class OverloadCommand implements Callable<Integer> {

  /** The rows of a run: every IO strategy on both transports, and two stock servers beside. */
  static final List<String> DEFAULT_SERVERS =
      List.of(
          "netty/same-thread",
          "netty/worker",
          "grizzly/same-thread",
          "grizzly/worker",
          "grizzly/leader-follower",
          "thrift-threadpool",
          "thrift-threaded-selector");

  static final List<String> DEFAULT_HANDLERS = List.of("cpu:100us", "sleep:5ms");

  static final List<Double> DEFAULT_LEVELS = List.of(0.5, 1.0, 1.5, 2.0, 3.0);

  /** The shortest default deadline. */
  static final Duration MIN_DEFAULT_DEADLINE = Duration.ofMillis(10);

  /**
   * The default deadline as a multiple of the handler's time, at least {@link
   * #MIN_DEFAULT_DEADLINE}.
   */
  static final int DEADLINE_PER_HANDLER_TIME = 20;

  /** The longest a row's server may take to go idle between levels. */
  static final Duration QUIESCE_LIMIT = Duration.ofSeconds(15);

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--preset",
      paramLabel = "P",
      description =
          "quick: 1 s warm-up and 2 s window per level, 5 s warm-up and 1 s steps for the capacity (every"
              + " default row and handler: over 10 minutes); options given beside it win")
  String preset;

  @Option(
      names = "--servers",
      split = ",",
      paramLabel = "ROW[?NAME=VALUE&...]",
      description =
          "server rows (default: "
              + "netty/same-thread,netty/worker,grizzly/same-thread,grizzly/worker,"
              + "grizzly/leader-follower,thrift-threadpool,thrift-threaded-selector); a row may"
              + " carry server options, e.g. 'netty/worker?workerQueueCapacity=64' (quote it)")
  List<String> servers;

  @Option(
      names = "--handlers",
      split = ",",
      paramLabel = "H",
      description = "handlers, as serve --handler reads them (default: cpu:100us,sleep:5ms)")
  List<String> handlers;

  @Option(
      names = "--levels",
      split = ",",
      paramLabel = "X",
      description = "offered load as multiples of each row's capacity (default: 0.5,1,1.5,2,3)")
  List<Double> levels;

  @Option(
      names = "--deadline",
      paramLabel = "D",
      converter = Cli.DurationConverter.class,
      description =
          "the callers' deadline (default: 20x the handler's time, at least 10ms: 10ms for"
              + " cpu:100us, 100ms for sleep:5ms)")
  Duration deadline;

  @Option(
      names = "--server-option",
      paramLabel = "NAME=VALUE",
      description =
          "a server builder setting for every library row (serve --server-option); repeatable")
  List<String> serverOptions;

  @Option(
      names = "--connections",
      paramLabel = "N",
      description = "connections of the load generator (default: 64)")
  Integer connections;

  @Option(
      names = "--depth",
      paramLabel = "N",
      description =
          "the most calls in flight per connection the capacity's steps reach (default: 4)")
  Integer depth;

  @Option(
      names = "--wire",
      paramLabel = "W",
      description =
          "header (default: THeader to the rows that serve it, which sends the deadline as"
              + " client_timeout; framed to the others) or framed (framed to every row)")
  String wire;

  @Option(
      names = "--warmup",
      paramLabel = "D",
      converter = Cli.DurationConverter.class,
      description = "warm-up of each level (default: 1s)")
  Duration warmup;

  @Option(
      names = "--duration",
      paramLabel = "D",
      converter = Cli.DurationConverter.class,
      description = "measured window of each level (default: 3s)")
  Duration duration;

  @Option(
      names = "--capacity-warmup",
      paramLabel = "D",
      converter = Cli.DurationConverter.class,
      description =
          "warm-up of the capacity measurement (default: 5s: a new server JVM whose JIT still"
              + " compiles on its one CPU measured half its capacity after 2s)")
  Duration capacityWarmup;

  @Option(
      names = "--capacity-duration",
      paramLabel = "D",
      converter = Cli.DurationConverter.class,
      description = "window of each step of the capacity measurement (default: 2s)")
  Duration capacityDuration;

  @Option(
      names = "--protocol",
      paramLabel = "P",
      defaultValue = "compact",
      description = "binary or compact (default: ${DEFAULT-VALUE})")
  String protocol;

  @Option(
      names = "--io-threads",
      paramLabel = "N",
      defaultValue = "1",
      description = "IO threads of every row (default: ${DEFAULT-VALUE})")
  int ioThreads;

  @Option(
      names = "--workers",
      paramLabel = "N",
      description = "worker threads of every row that has them (default: the row's own, 64)")
  Integer workers;

  @Option(
      names = "--client-cpu",
      paramLabel = "N",
      defaultValue = "-1",
      description = "CPU of the load generator (default: the first allowed)")
  int clientCpu;

  @Option(
      names = "--server-cpu",
      paramLabel = "N",
      defaultValue = "-1",
      description = "CPU of the server rows (default: the second allowed)")
  int serverCpu;

  @Option(names = "--no-pin", description = "run unpinned, the load generator in this JVM")
  boolean noPin;

  @Option(
      names = "--pinned-child",
      hidden = true,
      description = "this JVM is the load generator, already pinned to --client-cpu")
  boolean pinnedChild;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      defaultValue = "it/target/overload",
      description = "where report.md and results.csv go (default: ${DEFAULT-VALUE})")
  Path out;

  /**
   * One row of a run: its name and the server options it carries.
   *
   * @param name the row, e.g. {@code netty/worker}
   * @param options its server options, empty for none
   */
  record RowSpec(String name, Map<String, String> options) {

    /**
     * {@code netty/worker} or {@code netty/worker?workerQueueCapacity=64&workerStartTimeout=5ms}.
     */
    static RowSpec parse(String value) {
      int q = value.indexOf('?');
      if (q < 0) {
        return new RowSpec(value.trim(), Map.of());
      }
      String name = value.substring(0, q).trim();
      if (name.isEmpty()) {
        throw new IllegalArgumentException(
            "servers: '" + value + "' (expected: ROW or ROW?NAME=VALUE&NAME=VALUE)");
      }
      return new RowSpec(name, ServerOptions.parse(List.of(value.substring(q + 1).split("&"))));
    }

    /** The row as the report names it. */
    String label() {
      if (options.isEmpty()) {
        return name;
      }
      return name + "?" + String.join("&", ServerOptions.items(options));
    }
  }

  /**
   * Everything a run needs, checked.
   *
   * @param rows the rows
   * @param handlers the handlers
   * @param levels the levels, multiples of capacity
   * @param deadline the deadline, or {@code null} for each handler's default
   * @param serverOptions options for every library row
   * @param connections the generator's connections
   * @param depth the most calls in flight per connection the capacity's steps reach
   * @param header whether rows that serve THeader are called over it
   */
  record Settings(
      List<RowSpec> rows,
      List<OverloadHandler.Spec> handlers,
      List<Double> levels,
      Duration deadline,
      Map<String, String> serverOptions,
      int connections,
      int depth,
      boolean header,
      Duration warmup,
      Duration duration,
      Duration capacityWarmup,
      Duration capacityDuration,
      String protocol,
      int ioThreads,
      Integer workers,
      Path out) {

    /** The deadline of calls to {@code handler}. */
    Duration deadlineFor(OverloadHandler.Spec handler) {
      if (deadline != null) {
        return deadline;
      }
      Duration d =
          Duration.ofNanos(
              TimeUnit.MICROSECONDS.toNanos(handler.micros()) * DEADLINE_PER_HANDLER_TIME);
      return d.compareTo(MIN_DEFAULT_DEADLINE) < 0 ? MIN_DEFAULT_DEADLINE : d;
    }
  }

  /** Reads and checks the options; the preset fills what the command line left out. */
  Settings settings() {
    boolean quick = false;
    if (preset != null) {
      if (!preset.equals("quick")) {
        throw new IllegalArgumentException("preset: " + preset + " (expected: quick)");
      }
      quick = true;
    }
    List<RowSpec> rows = new ArrayList<>();
    for (String s : servers != null ? servers : DEFAULT_SERVERS) {
      rows.add(RowSpec.parse(s));
    }
    List<OverloadHandler.Spec> hs = new ArrayList<>();
    for (String h : handlers != null ? handlers : DEFAULT_HANDLERS) {
      OverloadHandler.Spec parsed = OverloadHandler.Spec.parse(h);
      if (parsed.kind() == OverloadHandler.Kind.ECHO) {
        throw new IllegalArgumentException(
            "handlers: echo (expected: cpu:D or sleep:D; an echo gives the server no work and the"
                + " load generator cannot outrun it)");
      }
      hs.add(parsed);
    }
    List<Double> ls = levels != null ? List.copyOf(levels) : DEFAULT_LEVELS;
    for (double l : ls) {
      if (!(l > 0) || l > 100) {
        throw new IllegalArgumentException("levels: " + l + " (expected: > 0 and <= 100)");
      }
    }
    if (deadline != null && deadline.isZero()) {
      throw new IllegalArgumentException("deadline: 0 (expected: > 0)");
    }
    int conns = connections != null ? connections : 64;
    if (conns < 1 || conns > 10_000) {
      throw new IllegalArgumentException("connections: " + conns + " (expected: 1..10000)");
    }
    int d = depth != null ? depth : 4;
    if (d < 1 || d > 1024) {
      throw new IllegalArgumentException("depth: " + d + " (expected: 1..1024)");
    }
    String w = wire != null ? wire.toLowerCase(Locale.ROOT) : "header";
    if (!w.equals("header") && !w.equals("framed")) {
      throw new IllegalArgumentException("wire: " + wire + " (expected: header or framed)");
    }
    if (!protocol.equals("binary") && !protocol.equals("compact")) {
      throw new IllegalArgumentException(
          "protocol: " + protocol + " (expected: binary or compact, which THeader can name)");
    }
    if (ioThreads < 1 || ioThreads > 1024) {
      throw new IllegalArgumentException("io-threads: " + ioThreads + " (expected: 1..1024)");
    }
    if (workers != null && (workers < 1 || workers > 100_000)) {
      throw new IllegalArgumentException("workers: " + workers + " (expected: 1..100000)");
    }
    Duration wu = orDefault(warmup, quick ? Duration.ofSeconds(1) : Duration.ofSeconds(1));
    Duration du = orDefault(duration, quick ? Duration.ofSeconds(2) : Duration.ofSeconds(3));
    Duration cw = orDefault(capacityWarmup, Duration.ofSeconds(5));
    Duration cd =
        orDefault(capacityDuration, quick ? Duration.ofSeconds(1) : Duration.ofSeconds(2));
    if (du.isZero() || cd.isZero()) {
      throw new IllegalArgumentException("duration and capacity-duration: expected > 0");
    }
    return new Settings(
        List.copyOf(rows),
        List.copyOf(hs),
        ls,
        deadline,
        ServerOptions.parse(serverOptions),
        conns,
        d,
        w.equals("header"),
        wu,
        du,
        cw,
        cd,
        protocol,
        ioThreads,
        workers,
        out);
  }

  private static Duration orDefault(Duration given, Duration fallback) {
    return given != null ? given : fallback;
  }

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter stdout = spec.commandLine().getOut();
    Settings s;
    try {
      s = settings();
      if (!noPin && !pinnedChild) {
        Pinning.decide(clientCpu, serverCpu); // checks the two CPUs differ
      }
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    Rows rows = Rows.standard();
    for (RowSpec r : s.rows()) {
      if (rows.server(r.name()) == null) {
        String missing = rows.missing(r.name());
        throw new CommandLine.ParameterException(
            spec.commandLine(),
            missing != null
                ? r.name() + ": " + missing
                : "servers: " + r.name() + " (expected: one of " + rows.serverNames() + ")");
      }
    }
    Pinning pin;
    if (noPin) {
      pin = Pinning.unpinned("--no-pin");
    } else if (pinnedChild) {
      pin = Pinning.pinned(clientCpu, serverCpu, Pinning.findOnPath("taskset"));
    } else {
      pin = Pinning.decide(clientCpu, serverCpu);
    }
    if (pin.pinned() && !pinnedChild) {
      return runPinnedChild(pin, err);
    }
    if (!pin.pinned()) {
      err.println("overload: " + pin.note());
    }
    return measure(s, rows, pin, stdout, err);
  }

  /** Re-runs this command in a child JVM pinned to the client CPU, with our stdout and stderr. */
  private int runPinnedChild(Pinning pin, PrintWriter err)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(pin.clientPrefix());
    command.add(ServeProcess.javaCommand());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(BenchMain.class.getName());
    command.add("overload");
    List<String> original = spec.commandLine().getParseResult().originalArgs();
    // The whole command line, from the top command's arguments: this command's own follow its name.
    int from = original.indexOf(spec.name()) + 1;
    for (int i = from; i < original.size(); i++) {
      String a = original.get(i);
      if (a.equals("--client-cpu") || a.equals("--server-cpu")) {
        i++; // given again below
      } else if (!a.startsWith("--client-cpu=") && !a.startsWith("--server-cpu=")) {
        command.add(a);
      }
    }
    command.addAll(
        List.of(
            "--pinned-child",
            "--client-cpu",
            Integer.toString(pin.clientCpu()),
            "--server-cpu",
            Integer.toString(pin.serverCpu())));
    err.println("overload: " + pin.note() + "; the load generator is a child JVM");
    err.flush();
    Process child = new ProcessBuilder(command).inheritIO().start();
    Thread stopChild = new Thread(child::destroy, "bench-overload-stop-child");
    Runtime.getRuntime().addShutdownHook(stopChild);
    try {
      return child.waitFor();
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(stopChild);
      } catch (IllegalStateException e) {
        // This JVM is shutting down already: the hook is running or has run.
      }
    }
  }

  private static int measure(
      Settings s, Rows rows, Pinning pin, PrintWriter stdout, PrintWriter err)
      throws IOException, InterruptedException {
    Instant started = Instant.now();
    List<OverloadResult> results = new ArrayList<>();
    for (OverloadHandler.Spec handler : s.handlers()) {
      Map<String, Double> capacities = new LinkedHashMap<>();
      for (RowSpec row : runOrder(s.rows())) {
        OverloadResult r = runRow(s, rows, pin, handler, row, capacities.get(row.name()), err);
        if (row.options().isEmpty() && r.ran()) {
          capacities.put(row.name(), r.capacity());
        }
        results.add(r);
      }
    }
    String levels = OverloadReport.levels(results);
    String graceful = OverloadReport.graceful(results);
    String banner = OverloadReport.banner(results);
    stdout.print(banner);
    stdout.print(levels);
    stdout.println();
    stdout.print(graceful);
    stdout.flush();
    Files.createDirectories(s.out());
    Files.writeString(
        s.out().resolve("results.csv"), OverloadReport.csv(results), StandardCharsets.UTF_8);
    StringBuilder md = new StringBuilder("# overload\n\n");
    md.append("Started ").append(started).append("; ").append(pin.note()).append(".\n\n");
    md.append(banner).append(setup(s)).append("\n\n");
    md.append("## Levels\n\n").append(levels).append("\n");
    md.append("## Graceful at twice capacity (issue 41)\n\n").append(graceful);
    Files.writeString(s.out().resolve("report.md"), md, StandardCharsets.UTF_8);
    err.println("overload: wrote report.md and results.csv to " + s.out().toAbsolutePath());
    err.print(banner); // last, where it is seen
    err.flush();
    return 0;
  }

  /**
   * The rows without options first, each order kept: a row with options (an adaptive limit, a queue
   * bound) is offered the rates of the same row without them, where the run has it, so that the two
   * are compared at equal load; a closed loop would measure a limit's refusals, not the row's
   * capacity.
   */
  static List<RowSpec> runOrder(List<RowSpec> rows) {
    List<RowSpec> out = new ArrayList<>();
    rows.stream().filter(r -> r.options().isEmpty()).forEach(out::add);
    rows.stream().filter(r -> !r.options().isEmpty()).forEach(out::add);
    return out;
  }

  static String setup(Settings s) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "Each row: serve --io-threads %d --protocol %s%s; %d connections of the library's"
                + " Netty channel call echo, %s to the rows that serve it (framed to the others);"
                + " capacity: the best answered rate of a closed loop stepped from %d calls in"
                + " flight, doubled while the rate grew by %.0f%% or more, up to %d per connection"
                + " (%s warm-up, %s per step); each level %s warm-up, %s window, open loop;"
                + " deadlines: ",
            s.ioThreads(),
            s.protocol(),
            s.workers() != null ? " --workers " + s.workers() : "",
            s.connections(),
            s.header() ? "THeader (deadline also sent as client_timeout)" : "framed",
            OverloadLoad.FIRST_IN_FLIGHT,
            (OverloadLoad.GROWTH - 1) * 100,
            s.depth(),
            Cli.format(s.capacityWarmup()),
            Cli.format(s.capacityDuration()),
            Cli.format(s.warmup()),
            Cli.format(s.duration())));
    List<String> ds = new ArrayList<>();
    for (OverloadHandler.Spec h : s.handlers()) {
      ds.add(h.label() + " " + Cli.format(s.deadlineFor(h)));
    }
    sb.append(String.join(", ", ds)).append('.');
    if (!s.serverOptions().isEmpty()) {
      sb.append(" Server options of every library row: ").append(s.serverOptions()).append('.');
    }
    sb.append(
        " goodput: calls answered within their deadline (from each call's due time) per second"
            + " of the window; p50/p99: answered calls; not run: refused with a 'not run' reply;"
            + " shed at deadline: answered that the caller's deadline passed before the handler"
            + " would start; timed out: the client gave up at the deadline; handler runs and runs"
            + " after deadline: counted by the handler from the window's start until the server"
            + " was idle after it.");
    return sb.toString();
  }

  private static OverloadResult runRow(
      Settings s,
      Rows rows,
      Pinning pin,
      OverloadHandler.Spec handler,
      RowSpec rowSpec,
      Double baseCapacity,
      PrintWriter err)
      throws InterruptedException {
    ServerRow row = rows.server(rowSpec.name());
    boolean library = row instanceof LibraryServerRow;
    Map<String, String> options = new LinkedHashMap<>(library ? s.serverOptions() : Map.of());
    options.putAll(rowSpec.options());
    String label = new RowSpec(rowSpec.name(), options).label();
    boolean header = s.header() && row.wireKinds().contains(WireKind.HEADER);
    WireKind wire = header ? WireKind.HEADER : WireKind.FRAMED;
    String wireName = wire.name().toLowerCase(Locale.ROOT);
    Duration deadline = s.deadlineFor(handler);
    long deadlineUs = TimeUnit.NANOSECONDS.toMicros(deadline.toNanos());
    List<String> args =
        new ArrayList<>(
            List.of(
                "--server",
                rowSpec.name(),
                "--protocol",
                s.protocol(),
                "--io-threads",
                Integer.toString(s.ioThreads()),
                "--handler",
                handler.label(),
                "--connections",
                Integer.toString(Math.max(s.connections(), 16))));
    if (s.workers() != null) {
      args.add("--workers");
      args.add(Integer.toString(s.workers()));
    }
    if (header) {
      args.add("--transports");
      args.add("framed,header");
    }
    for (String item : ServerOptions.items(options)) {
      args.add("--server-option");
      args.add(item);
    }
    ServeProcess serve;
    try {
      serve = ServeProcess.start(pin.serverPrefix(), row.childJava(), List.of(), args);
    } catch (IOException e) {
      String why = "cannot start " + label + ": " + MatrixRunner.message(e);
      err.println("overload: " + handler.label() + " " + why);
      return new OverloadResult(
          label, handler.label(), wireName, deadlineUs, 0, List.of(), why, -1);
    }
    try {
      double capacity;
      String from = "";
      if (baseCapacity != null && !options.isEmpty()) {
        capacity = baseCapacity;
        from = " (" + rowSpec.name() + "'s, measured without the options)";
      } else {
        try (OverloadLoad load =
            new OverloadLoad(
                label,
                serve.address(),
                s.connections(),
                wire,
                s.protocol(),
                Duration.ofSeconds(30))) {
          OverloadLoad.Capacity measured =
              load.saturate(
                  s.depth() * s.connections(),
                  s.capacityWarmup(),
                  s.capacityDuration(),
                  serve.pid());
          capacity = measured.callsPerSecond();
          from = String.format(Locale.ROOT, " at %d calls in flight", measured.inFlight());
        }
        quiesce(serve);
      }
      err.printf(
          Locale.ROOT,
          "overload: %s %s (%s): capacity %,.0f calls/s%s; deadline %s%n",
          handler.label(),
          label,
          wireName,
          capacity,
          from,
          Cli.format(deadline));
      err.flush();
      if (!(capacity > 0)) {
        return new OverloadResult(
            label,
            handler.label(),
            wireName,
            deadlineUs,
            capacity,
            List.of(),
            "no call answered",
            -1);
      }
      List<OverloadResult.Level> levels = new ArrayList<>();
      double otherLoad = pin.pinned() ? 0 : -1;
      try (OverloadLoad load =
          new OverloadLoad(label, serve.address(), s.connections(), wire, s.protocol(), deadline)) {
        // Every level once, unmeasured, on every row. The load generator's open loop, cold, sent
        // calls 3 to 5 ms late (p99) at 0.5x on whichever row came first, so that row was never
        // judged. And each row's server is a new JVM whose code was compiled without its refusals:
        // a row measured without this warm-up (every row but the first, until it was given to
        // every row) met its first overload in the measured 2x level, where the paths taken for
        // the first time threw away its compiled read and dispatch code and recompiling it took a
        // quarter to a half of the server's one CPU for about ten seconds.
        err.printf(
            "overload: %s %s: warm-up, every level once, not counted%n", handler.label(), label);
        for (double factor : s.levels()) {
          load.offer(factor, capacity * factor, deadline, s.warmup(), s.duration(), open -> {});
          quiesce(serve);
        }
        for (double factor : s.levels()) {
          long[] before = new long[2];
          long[] busy = new long[2];
          long[] windowNanos = new long[1];
          IOException[] failed = new IOException[1];
          OverloadResult.Level level =
              load.offer(
                  factor,
                  capacity * factor,
                  deadline,
                  s.warmup(),
                  s.duration(),
                  open -> {
                    try {
                      if (open) {
                        long[] c = serve.handlerCounts();
                        before[0] = c[0];
                        before[1] = c[1];
                        if (pin.pinned()) {
                          busy[0] = ProcStat.cpuBusyNanos(pin.serverCpu());
                          busy[1] = ProcStat.cpuNanos(serve.pid());
                        }
                        windowNanos[0] = System.nanoTime();
                      } else if (pin.pinned()) {
                        double window = System.nanoTime() - windowNanos[0];
                        long cpuBusy = ProcStat.cpuBusyNanos(pin.serverCpu()) - busy[0];
                        long own = ProcStat.cpuNanos(serve.pid()) - busy[1];
                        busy[0] = Math.max(0, cpuBusy - own);
                        busy[1] = (long) window;
                      }
                    } catch (IOException e) {
                      failed[0] = e;
                    }
                  });
          quiesce(serve);
          if (failed[0] == null) {
            long[] after = serve.handlerCounts();
            if (before[0] >= 0 && after[0] >= 0) {
              level = level.withHandler(after[0] - before[0], after[1] - before[1]);
            }
          }
          if (pin.pinned() && busy[1] > 0) {
            otherLoad = Math.max(otherLoad, (double) busy[0] / busy[1]);
          }
          levels.add(level);
          err.printf(
              Locale.ROOT,
              "overload: %s %s %sx: offered %,.0f/s, sent %,.0f/s (lag p99 %,d us), goodput"
                  + " %,.0f/s, p99 %,d us, not run %d, shed %d, timed out %d, late runs %d%n",
              handler.label(),
              label,
              OverloadReport.factor(factor),
              level.target(),
              level.sentPerSecond(),
              level.sendLagP99Us(),
              level.goodput(),
              level.p99Us(),
              level.notRun(),
              level.shedAtDeadline(),
              level.timedOut(),
              level.lateRuns());
          err.flush();
        }
      }
      return new OverloadResult(
          label,
          handler.label(),
          wireName,
          deadlineUs,
          capacity,
          List.copyOf(levels),
          null,
          otherLoad);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        throw (InterruptedException) e;
      }
      String why = "failed: " + MatrixRunner.message(e);
      err.println("overload: " + handler.label() + " " + label + " " + why);
      return new OverloadResult(
          label, handler.label(), wireName, deadlineUs, 0, List.of(), why, -1);
    } finally {
      serve.close();
    }
  }

  /**
   * Waits until the server's handler has stopped running calls (its run count unchanged over 100
   * ms), at most {@link #QUIESCE_LIMIT}: a queue the last level left behind must not load the next.
   */
  static void quiesce(ServeProcess serve) throws IOException, InterruptedException {
    long end = System.nanoTime() + QUIESCE_LIMIT.toNanos();
    long last = serve.handlerCounts()[0];
    while (System.nanoTime() < end) {
      Thread.sleep(100);
      long now = serve.handlerCounts()[0];
      if (now == last) {
        return;
      }
      last = now;
    }
  }
}
