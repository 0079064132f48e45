package io.thriftnio.it.bench;

import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerStats;
import io.thriftnio.testkit.Payloads;
import java.io.IOException;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code soak}: a long run of pooled clients against one of this library's servers, with faults.
 *
 * <p>Server and clients run in this one JVM, so heap, descriptors and threads are the sum of both;
 * they are measured before anything starts and again after everything closed, which is what shows a
 * leak. Faults: every {@code --kill-every}, {@code --kill-count} random client connections are
 * aborted under the pools (sockets reset, channels closed with calls in flight); every {@code
 * --restart-every}, the server is closed, stays down {@code --restart-pause}, and a new one starts
 * on the same port while the callers keep calling. Each fault opens a window that closes {@code
 * --fault-grace} after it ended; an error outside every window is a finding.
 *
 * <p>With {@code --slow-share P}, P percent of the calls are slow: {@code sleep(--slow-millis)},
 * past the call timeout. They are expected to time out and are counted apart from errors, as are
 * calls that timed out only behind another timed-out call on their pipelined connection; a slow
 * call that gets a reply is a finding. The pools' ejections are sorted into the fault windows like
 * errors: one outside every window is the ejection of a live server, a finding.
 *
 * <p>With {@code --discovery zookeeper}, a real ZooKeeper starts in this JVM, {@code --servers}
 * servers register in it ({@code ZooKeeperRegistration}) and both pools follow it ({@code
 * ZooKeeperEndpointSource}); every {@code --restart-every} a rolling round closes each server in
 * turn gracefully (its node deleted, {@code --deregister-grace} served, then drained) and starts a
 * new one on a free port. An error during a graceful restart is a finding too, and the summary
 * gives the latency of successful calls before, during and after the rounds.
 */
@Command(
    name = "soak",
    mixinStandardHelpOptions = true,
    versionProvider = BenchMain.Version.class,
    description = {
      "Runs pooled sync and async clients with a mix of every BenchService method against a "
          + "netty or grizzly server in this JVM for a long time, aborting client connections "
          + "and restarting the server periodically.",
      "Samples calls, errors, heap, descriptors, threads and ServerStats every --sample; writes "
          + "samples.csv, soak.png and summary.md to --out; prints the summary."
    })
final class SoakCommand implements Callable<Integer> {

  /** Descriptors the run may keep after closing everything before it counts as a leak. */
  static final int FD_TOLERANCE = 16;

  /** Heap after GC the run may keep after closing everything before it counts as a leak. */
  static final long HEAP_TOLERANCE_BYTES = 32L * 1024 * 1024;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(names = "--server", required = true, paramLabel = "S", description = "netty or grizzly")
  String server;

  @Option(
      names = "--strategy",
      paramLabel = "T",
      description = "same-thread, worker or leader-follower (default: worker)")
  String strategy;

  @Option(
      names = "--protocol",
      paramLabel = "P",
      defaultValue = "binary",
      description = "binary, compact or json (default: ${DEFAULT-VALUE})")
  String protocol;

  @Option(
      names = "--connections",
      paramLabel = "N",
      defaultValue = "1000",
      description = "client connections, both pools together (default: ${DEFAULT-VALUE})")
  int connections;

  @Option(
      names = "--async-share",
      paramLabel = "F",
      defaultValue = "0.5",
      description =
          "share of the connections in the async ThriftChannelPool ("
              + SoakLoad.ASYNC_CALLERS_PER_CONNECTION
              + " callers each); "
              + "the rest are ThriftClientPool sockets, one caller thread each "
              + "(default: ${DEFAULT-VALUE})")
  double asyncShare;

  @Option(
      names = "--duration",
      paramLabel = "D",
      defaultValue = "10m",
      converter = Cli.DurationConverter.class,
      description = "how long to run (default: ${DEFAULT-VALUE})")
  Duration duration;

  @Option(
      names = "--sample",
      paramLabel = "D",
      defaultValue = "5s",
      converter = Cli.DurationConverter.class,
      description = "sampling interval (default: ${DEFAULT-VALUE})")
  Duration sample;

  @Option(
      names = "--think",
      paramLabel = "D",
      defaultValue = "100ms",
      converter = Cli.DurationConverter.class,
      description = "each caller's pause between calls (default: ${DEFAULT-VALUE})")
  Duration think;

  @Option(
      names = "--call-timeout",
      paramLabel = "D",
      defaultValue = "5s",
      converter = Cli.DurationConverter.class,
      description = "read, request, connect and borrow timeout (default: ${DEFAULT-VALUE})")
  Duration callTimeout;

  @Option(
      names = "--slow-share",
      paramLabel = "PCT",
      defaultValue = "0",
      description =
          "percent of the calls that are slow: sleep(--slow-millis), past the call timeout. They"
              + " are expected to time out and are counted apart from errors (default:"
              + " ${DEFAULT-VALUE}, none)")
  double slowShare;

  @Option(
      names = "--slow-millis",
      paramLabel = "MS",
      description =
          "how long a slow call sleeps on the server, in ms; more than --call-timeout (default:"
              + " the call timeout + 1000)")
  Integer slowMillis;

  @Option(
      names = "--kill-every",
      paramLabel = "D",
      defaultValue = "15s",
      converter = Cli.DurationConverter.class,
      description = "how often to abort client connections; 0 never (default: ${DEFAULT-VALUE})")
  Duration killEvery;

  @Option(
      names = "--kill-count",
      paramLabel = "N",
      defaultValue = "20",
      description = "connections aborted each time (default: ${DEFAULT-VALUE})")
  int killCount;

  @Option(
      names = "--restart-every",
      paramLabel = "D",
      defaultValue = "2m",
      converter = Cli.DurationConverter.class,
      description = "how often to restart the server; 0 never (default: ${DEFAULT-VALUE})")
  Duration restartEvery;

  @Option(
      names = "--restart-pause",
      paramLabel = "D",
      defaultValue = "2s",
      converter = Cli.DurationConverter.class,
      description = "how long the server stays down (default: ${DEFAULT-VALUE})")
  Duration restartPause;

  @Option(
      names = "--discovery",
      paramLabel = "D",
      defaultValue = "none",
      description =
          "none: the pools call one server at a fixed address; zookeeper: an embedded ZooKeeper, "
              + "--servers servers registered in it, pools that follow it, and every "
              + "--restart-every a rolling graceful restart of each server in turn "
              + "(default: ${DEFAULT-VALUE})")
  String discovery;

  @Option(
      names = "--servers",
      paramLabel = "N",
      defaultValue = "1",
      description = "servers, with --discovery zookeeper only (default: ${DEFAULT-VALUE})")
  int servers;

  @Option(
      names = "--deregister-grace",
      paramLabel = "D",
      defaultValue = "1s",
      converter = Cli.DurationConverter.class,
      description =
          "with --discovery zookeeper: how long a closing server serves after its node is "
              + "deleted, before it drains (default: ${DEFAULT-VALUE})")
  Duration deregisterGrace;

  @Option(
      names = "--kill-server-at",
      paramLabel = "D",
      defaultValue = "0",
      converter = Cli.DurationConverter.class,
      description =
          "with --discovery zookeeper: the last of the --servers runs in a child JVM, registered"
              + " with a ZooKeeper session of its own, and is killed (SIGKILL) this long after the"
              + " start: no deregistration, no drain, its node goes when its session expires; 0"
              + " never (default: ${DEFAULT-VALUE})")
  Duration killServerAt;

  @Option(
      names = "--fault-grace",
      paramLabel = "D",
      converter = Cli.DurationConverter.class,
      description =
          "how long after a fault its errors still count as its own (default: the "
              + "call timeout + 3s)")
  Duration faultGrace;

  @Option(
      names = "--large",
      paramLabel = "SIZE",
      defaultValue = "256k",
      description = "the large echo payload (default: ${DEFAULT-VALUE})")
  String large;

  @Option(
      names = "--workers",
      paramLabel = "N",
      description = "the server's worker threads (default: the server's own)")
  Integer workers;

  @Option(
      names = "--io-threads",
      paramLabel = "N",
      description = "the server's IO threads (default: the server's own)")
  Integer ioThreads;

  @Option(
      names = "--seed",
      paramLabel = "N",
      defaultValue = "1",
      description = "seed of the kill choices (default: ${DEFAULT-VALUE})")
  long seed;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "output folder (default: it/target/soak)")
  Path out;

  @Option(
      names = "--fail-on-findings",
      description =
          "exit with 1 if an error fell outside every fault window, a reply was wrong, "
              + "calls did not resume after the last restart, descriptors or heap stayed above "
              + "their baseline, a slow call got a reply or a live server was ejected")
  boolean failOnFindings;

  /** How often the pools' ejection count is read, to place each ejection in its window. */
  static final Duration EJECTION_POLL = Duration.ofMillis(100);

  /** ZooKeeper path under which {@code --discovery zookeeper} registers the servers. */
  static final String ZK_BASE_PATH = "/thrift-nio-bench";

  /** The service name the servers register under. */
  static final String ZK_SERVICE = "bench";

  private final Object serverLock = new Object();
  // One server, or --servers of them in discovery order; an element is null while it is down.
  private final List<RunningServer> current = new ArrayList<>(); // guarded by serverLock
  private ServeProcess child; // the server --kill-server-at kills; guarded by serverLock
  private long[] closedTotals = new long[4]; // accepted, completed, failed, rejected; serverLock

  @Override
  public Integer call() throws Exception {
    PrintWriter stdout = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    String name;
    int largeSize;
    try {
      if (!server.equals("netty") && !server.equals("grizzly")) {
        throw new IllegalArgumentException("server: " + server + " (expected: netty or grizzly)");
      }
      name = ServeCommand.rowName(server, strategy);
      Protocols.factory(protocol);
      largeSize = Payloads.parseSize(large);
      if (connections < 1 || connections > 20_000) {
        throw new IllegalArgumentException("connections: " + connections + " (expected: 1..20000)");
      }
      if (!(asyncShare >= 0 && asyncShare <= 1)) {
        throw new IllegalArgumentException("async-share: " + asyncShare + " (expected: 0..1)");
      }
      if (duration.isZero() || sample.isZero()) {
        throw new IllegalArgumentException(
            "duration: " + duration + ", sample: " + sample + " (expected: both > 0)");
      }
      if (callTimeout.isZero()) {
        throw new IllegalArgumentException("call-timeout: 0 (expected: > 0)");
      }
      if (killCount < 0) {
        throw new IllegalArgumentException("kill-count: " + killCount + " (expected: >= 0)");
      }
      if (!(slowShare >= 0 && slowShare <= 100)) {
        throw new IllegalArgumentException("slow-share: " + slowShare + " (expected: 0..100)");
      }
      if (slowMillis() <= callTimeout.toMillis()) {
        throw new IllegalArgumentException(
            "slow-millis: "
                + slowMillis()
                + " (expected: > call-timeout "
                + callTimeout.toMillis()
                + " ms, so that each slow call times out)");
      }
      if (!discovery.equals("none") && !discovery.equals("zookeeper")) {
        throw new IllegalArgumentException(
            "discovery: " + discovery + " (expected: none or zookeeper)");
      }
      if (!killServerAt.isZero() && (!zooKeeper() || servers < 2)) {
        throw new IllegalArgumentException(
            "kill-server-at: "
                + killServerAt
                + " (expected: 0, or --discovery zookeeper with --servers 2 or more)");
      }
      int maxServers = zooKeeper() ? 9 : 1;
      if (servers < 1 || servers > maxServers) {
        throw new IllegalArgumentException(
            "servers: "
                + servers
                + " (expected: 1.."
                + maxServers
                + (zooKeeper() ? ")" : "; several need --discovery zookeeper)"));
      }
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    Duration grace = faultGrace != null ? faultGrace : callTimeout.plusSeconds(3);
    Path dir = out != null ? out : Path.of("it", "target", "soak");
    ServerRow row = Rows.standard().server(name);
    if (row == null) {
      err.println("soak: " + name + " is not in this build");
      return 1;
    }
    int asyncConnections = (int) Math.round(connections * asyncShare);
    int syncConnections = connections - asyncConnections;

    SoakReport.Baseline before = SoakReport.Baseline.now();
    ServerSpec anyPort =
        new ServerSpec(
            MatrixRunner.LOOPBACK, 0, protocol, workers, ioThreads, false, connections + 64);
    SoakZooKeeper zk = zooKeeper() ? SoakZooKeeper.start(deregisterGrace) : null;
    boolean killOne = !killServerAt.isZero();
    try {
      if (killOne) {
        ServeProcess p = startChild(zk);
        synchronized (serverLock) {
          child = p;
        }
      }
      for (int i = killOne ? 1 : 0; i < servers; i++) {
        RunningServer s = row.start(anyPort);
        synchronized (serverLock) {
          current.add(s);
        }
        if (zk != null) {
          zk.register(s);
        }
      }
    } catch (Exception e) {
      closeServers();
      if (zk != null) {
        zk.close();
      }
      throw e;
    }
    InetSocketAddress address;
    synchronized (serverLock) {
      address = current.get(0).address();
    }
    ServerSpec samePort =
        new ServerSpec(
            MatrixRunner.LOOPBACK,
            address.getPort(),
            protocol,
            workers,
            ioThreads,
            false,
            connections + 64);
    err.printf(
        Locale.ROOT,
        "soak: %s on %s, %d sync + %d async connections (%d callers), "
            + "%s, in this JVM (client and server together)%n",
        name,
        zk == null
            ? address
            : servers + " servers registered in ZooKeeper at " + zk.connectString(),
        syncConnections,
        asyncConnections,
        syncConnections + asyncConnections * SoakLoad.ASYNC_CALLERS_PER_CONNECTION,
        duration);

    String overload = overload(name, syncConnections, asyncConnections);
    if (overload != null) {
      err.println("soak: warning: " + overload);
    }
    SoakRecorder recorder = new SoakRecorder(grace.toNanos());
    SoakReport report =
        new SoakReport(name, this, before, syncConnections, asyncConnections, grace, overload);
    ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
    SoakLoad load =
        zk != null
            ? new SoakLoad(
                zk::source,
                false,
                Protocols.factory(protocol),
                syncConnections,
                asyncConnections,
                callTimeout,
                think,
                SoakMix.Inputs.of(largeSize, slowShare, slowMillis()),
                recorder)
            : new SoakLoad(
                address,
                Protocols.factory(protocol),
                syncConnections,
                asyncConnections,
                callTimeout,
                think,
                SoakMix.Inputs.of(largeSize, slowShare, slowMillis()),
                recorder);
    ScheduledExecutorService sampler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "soak-sampler");
              t.setDaemon(true);
              return t;
            });
    long start = System.nanoTime();
    Instant started = Instant.now();
    SplittableRandom random = new SplittableRandom(seed);
    int kills = 0;
    int killed = 0;
    try {
      load.start();
      sampler.scheduleAtFixedRate(
          () -> {
            // An exception would cancel the schedule without a word: report it and carry on.
            try {
              SoakReport.Sample s = sample(start, recorder, load, events);
              report.add(s);
              err.println(s.progressLine());
            } catch (RuntimeException e) {
              err.println("soak: sampling failed: " + e);
            }
          },
          sample.toNanos(),
          sample.toNanos(),
          TimeUnit.NANOSECONDS);
      // Often, so that each ejection lands in the fault window (or none) it happened in.
      sampler.scheduleAtFixedRate(
          () -> recorder.ejections(load.ejections()),
          EJECTION_POLL.toNanos(),
          EJECTION_POLL.toNanos(),
          TimeUnit.NANOSECONDS);
      long end = start + duration.toNanos();
      long nextKill =
          killEvery.isZero() || killCount == 0 ? Long.MAX_VALUE : start + killEvery.toNanos();
      long nextRestart = restartEvery.isZero() ? Long.MAX_VALUE : start + restartEvery.toNanos();
      long serverKill = killOne ? start + killServerAt.toNanos() : Long.MAX_VALUE;
      while (true) {
        long next = Math.min(Math.min(end, serverKill), Math.min(nextKill, nextRestart));
        long wait = next - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
          continue;
        }
        if (next == end) {
          break;
        }
        if (next == serverKill) {
          serverKill = Long.MAX_VALUE;
          String line = killChild(recorder, sampler, start);
          report.serverKilled(line);
          events.add("kill-server");
          err.println("soak: " + line);
        } else if (next == nextRestart) {
          nextRestart += restartEvery.toNanos();
          if (zk != null) {
            rollingRound(row, anyPort, zk, recorder, report, start, events, err);
            // A round longer than --restart-every is followed by the next one at once, not by
            // the rounds it overran.
            nextRestart = Math.max(nextRestart, System.nanoTime());
          } else {
            SoakReport.Restart r = restart(row, samePort, recorder, start);
            report.restart(r);
            events.add("restart");
            err.println("soak: " + r.line());
          }
        } else {
          nextKill += killEvery.toNanos();
          Object fault = recorder.faultStarted(SoakRecorder.Window.KILL);
          int n = load.kill(killCount, random);
          recorder.faultEnded(fault);
          kills++;
          killed += n;
          events.add("kill " + n);
        }
      }
    } finally {
      sampler.shutdown();
      sampler.awaitTermination(10, TimeUnit.SECONDS);
      double now = (System.nanoTime() - start) / 1e9;
      if (report.sinceLastSample(now) > sample.toNanos() / 2e9) {
        report.add(sample(start, recorder, load, events));
      }
      recorder.ejections(load.ejections());
      long lastOk = recorder.lastOkNanos();
      report.finished(
          recorder,
          kills,
          killed,
          load.poolStats(),
          serverTotals(),
          now,
          ((lastOk == 0 ? start : lastOk) - System.nanoTime()) / -1e9);
      load.close();
      closeServers();
      if (zk != null) {
        zk.close();
      }
    }
    // Threads and sockets take a moment to go: event loops finish their shutdown asynchronously.
    Thread.sleep(2_000);
    report.after(SoakReport.Baseline.now());
    String summary = report.summary(started);
    stdout.print(summary);
    stdout.flush();
    List<Path> written = report.writeAll(dir, summary);
    err.println("soak: wrote " + written);
    return failOnFindings && !report.findings().isEmpty() ? 1 : 0;
  }

  private SoakReport.Restart restart(
      ServerRow row, ServerSpec samePort, SoakRecorder recorder, long runStart) throws Exception {
    Object fault = recorder.faultStarted(SoakRecorder.Window.RESTART);
    long t0 = System.nanoTime();
    RunningServer old;
    synchronized (serverLock) {
      old = current.get(0);
    }
    old.close();
    long stopped = System.nanoTime();
    synchronized (serverLock) {
      addClosedTotals(old);
      current.set(0, null);
    }
    Thread.sleep(restartPause.toMillis());
    RunningServer fresh = startWithRetry(row, samePort, Duration.ofSeconds(30));
    long up = System.nanoTime();
    synchronized (serverLock) {
      current.set(0, fresh);
    }
    recorder.restarted();
    recorder.faultEnded(fault);
    return new SoakReport.Restart(
        (t0 - runStart) / 1e9, (stopped - t0) / 1e6, (up - stopped) / 1e6, null);
  }

  /**
   * One rolling round: each server in turn is closed gracefully (its node deleted, the deregister
   * grace served, then drained), stays down {@code --restart-pause}, and a new one starts on a free
   * port and registers. The next server's turn waits another deregister grace, the time the pools
   * take to hear of the new node, so that at most one server is ever out of service. Every call
   * that fails meanwhile is a finding.
   */
  private void rollingRound(
      ServerRow row,
      ServerSpec anyPort,
      SoakZooKeeper zk,
      SoakRecorder recorder,
      SoakReport report,
      long runStart,
      ConcurrentLinkedQueue<String> events,
      PrintWriter err)
      throws Exception {
    recorder.phase(SoakRecorder.Phase.DURING);
    int inThisJvm;
    synchronized (serverLock) {
      inThisJvm = current.size(); // without the child --kill-server-at kills
    }
    try {
      for (int i = 0; i < inThisJvm; i++) {
        Object fault = recorder.faultStarted(SoakRecorder.Window.GRACEFUL);
        long t0 = System.nanoTime();
        RunningServer old;
        synchronized (serverLock) {
          old = current.get(i);
        }
        old.close(); // deregisters, serves the grace, drains
        long stopped = System.nanoTime();
        synchronized (serverLock) {
          addClosedTotals(old);
          current.set(i, null);
        }
        Thread.sleep(restartPause.toMillis());
        RunningServer fresh = row.start(anyPort);
        synchronized (serverLock) {
          current.set(i, fresh);
        }
        zk.register(fresh);
        long up = System.nanoTime();
        Thread.sleep(deregisterGrace.toMillis());
        recorder.faultEnded(fault);
        SoakReport.Restart r =
            new SoakReport.Restart(
                (t0 - runStart) / 1e9,
                (stopped - t0) / 1e6,
                (up - stopped) / 1e6,
                "server " + (i + 1) + " " + old.address() + " -> " + fresh.address());
        report.restart(r);
        events.add("graceful-restart-" + (i + 1));
        err.println("soak: " + r.line());
      }
    } finally {
      recorder.phase(SoakRecorder.Phase.AFTER);
    }
  }

  /**
   * The server {@code --kill-server-at} kills: {@code serve} in a child JVM, registered through a
   * ZooKeeper session of its own; returns once it is registered.
   */
  private ServeProcess startChild(SoakZooKeeper zk) throws IOException {
    List<String> args = new ArrayList<>();
    args.addAll(List.of("--server", server, "--protocol", protocol, "--host"));
    args.add(MatrixRunner.LOOPBACK);
    if (strategy != null) {
      args.addAll(List.of("--strategy", strategy));
    }
    args.addAll(List.of("--connections", String.valueOf(connections + 64)));
    if (workers != null) {
      args.addAll(List.of("--workers", String.valueOf(workers)));
    }
    if (ioThreads != null) {
      args.addAll(List.of("--io-threads", String.valueOf(ioThreads)));
    }
    args.addAll(List.of("--zookeeper", zk.connectString()));
    args.addAll(List.of("--zk-session-timeout", SoakZooKeeper.SESSION_MILLIS + "ms"));
    return ServeProcess.start(List.of("-Xmx512m"), args);
  }

  /**
   * Kills the child server. Its fault window lasts until its ZooKeeper session has expired (the
   * pools may choose it until then) and then the fault grace.
   */
  private String killChild(SoakRecorder recorder, ScheduledExecutorService timer, long runStart)
      throws InterruptedException {
    ServeProcess p;
    synchronized (serverLock) {
      p = child;
      child = null;
    }
    Object fault = recorder.faultStarted(SoakRecorder.Window.KILL);
    long t0 = System.nanoTime();
    p.kill();
    timer.schedule(
        () -> recorder.faultEnded(fault), SoakZooKeeper.SESSION_MILLIS, TimeUnit.MILLISECONDS);
    return String.format(
        Locale.ROOT,
        "killed server %d %s (pid %d, SIGKILL) at %.0fs; its node stays until its session expires"
            + " (%d ms)",
        servers,
        p.address(),
        p.pid(),
        (t0 - runStart) / 1e9,
        SoakZooKeeper.SESSION_MILLIS);
  }

  private boolean zooKeeper() {
    return "zookeeper".equals(discovery);
  }

  /** Closes every server still up, each gracefully. */
  private void closeServers() {
    List<RunningServer> open;
    ServeProcess p;
    synchronized (serverLock) {
      p = child;
      child = null;
    }
    if (p != null) {
      p.close(); // graceful: deregisters, drains, exits
    }
    synchronized (serverLock) {
      open = new ArrayList<>(current);
      current.clear();
    }
    for (RunningServer s : open) {
      if (s != null) {
        s.close();
        synchronized (serverLock) {
          addClosedTotals(s);
        }
      }
    }
  }

  private void addClosedTotals(RunningServer closed) {
    ServerStats s = closed.stats();
    if (s != null) {
      closedTotals[0] += s.acceptedConnections();
      closedTotals[1] += s.completedCalls();
      closedTotals[2] += s.failedCalls();
      closedTotals[3] += s.rejectedConnections();
    }
  }

  /** The old server's port may take a moment to be free again. */
  private static RunningServer startWithRetry(ServerRow row, ServerSpec spec, Duration timeout)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      try {
        return row.start(spec);
      } catch (Exception e) {
        boolean bind =
            e instanceof BindException
                || e.getCause() instanceof BindException
                || String.valueOf(e.getMessage()).contains("Address already in use");
        if (!bind || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(200);
      }
    }
  }

  /** Accepted, completed, failed, rejected over every server of the run, and open now. */
  private long[] serverTotals() {
    synchronized (serverLock) {
      long[] t = closedTotals.clone();
      long open = 0;
      for (RunningServer r : current) {
        ServerStats s = r == null ? null : r.stats();
        if (s != null) {
          t[0] += s.acceptedConnections();
          t[1] += s.completedCalls();
          t[2] += s.failedCalls();
          t[3] += s.rejectedConnections();
          open += s.openConnections();
        }
      }
      return new long[] {t[0], t[1], t[2], t[3], open};
    }
  }

  private SoakReport.Sample sample(
      long start, SoakRecorder recorder, SoakLoad load, ConcurrentLinkedQueue<String> events) {
    List<String> ev = new ArrayList<>();
    String e;
    while ((e = events.poll()) != null) {
      ev.add(e);
    }
    long[] server = serverTotals();
    return new SoakReport.Sample(
        (System.nanoTime() - start) / 1e9,
        recorder.okCalls(),
        recorder.errors(),
        recorder.errors(SoakRecorder.Window.NONE),
        recorder.errors(SoakRecorder.Window.GRACEFUL),
        recorder.intervalP99Millis(),
        JvmStats.heapUsed(),
        JvmStats.openFds(),
        JvmStats.threadCount(),
        server[4],
        server[0],
        server[1],
        server[2],
        load.syncOpen(),
        load.asyncOpen(),
        String.join(" ", ev));
  }

  /** {@code --slow-share} as typed: {@code 0.5}, {@code 2}. */
  String slowSharePercent() {
    return BigDecimal.valueOf(slowShare).stripTrailingZeros().toPlainString();
  }

  /** How long a slow call sleeps: {@code --slow-millis}, by default the call timeout + 1 s. */
  int slowMillis() {
    return slowMillis != null ? slowMillis : (int) callTimeout.toMillis() + 1000;
  }

  /**
   * Why the run is expected to time out by its configuration, or null. A {@code same-thread} server
   * runs its handlers on the IO threads, and the mix's {@code sleep} (and the slow calls) cap what
   * they serve ({@link SoakMix#sameThreadCeiling}); past that ceiling requests queue behind
   * sleeping handlers until callers time out, accepts included (the acceptor shares the loops). Any
   * other strategy runs each slow call on a worker thread for {@code --slow-millis}; more slow
   * calls at once than half the workers leave too few for the rest. Overload the configuration
   * chose, not a fault.
   */
  private String overload(String name, int syncConnections, int asyncConnections) {
    if (think.isZero()) {
      return null;
    }
    int callers = syncConnections + asyncConnections * SoakLoad.ASYNC_CALLERS_PER_CONNECTION;
    double offered = callers * 1e9 / think.toNanos();
    if (name.endsWith("/same-thread")) {
      int loops = ioThreads != null ? ioThreads : Runtime.getRuntime().availableProcessors();
      double ceiling = SoakMix.sameThreadCeiling(loops, slowShare, slowMillis());
      if (offered <= ceiling) {
        return null;
      }
      return String.format(
          Locale.ROOT,
          "same-thread runs the mix's sleep(%d ms)%s on the %d IO threads, so it serves at most"
              + " about %,.0f calls/s; %,d callers thinking %s offer up to %,.0f calls/s. Expect"
              + " timeouts from overload; raise --io-threads or --think to soak without it.",
          SoakMix.SLEEP_MILLIS,
          slowShare > 0
              ? String.format(Locale.ROOT, " and the slow calls' sleep(%d ms)", slowMillis())
              : "",
          loops,
          ceiling,
          callers,
          think,
          offered);
    }
    int threads = workers != null ? workers : ServerBuilder.DEFAULT_WORKER_THREADS;
    double asleep = offered * slowShare / 100 * slowMillis() / 1000 / servers;
    if (asleep <= threads / 2.0) {
      return null;
    }
    return String.format(
        Locale.ROOT,
        "%s runs each slow call's sleep(%d ms) on one of its %d worker threads; %,d callers"
            + " thinking %s offer up to %,.0f calls/s, %s%% of them slow: up to about %,.0f slow"
            + " calls asleep at once per server. Expect timeouts from overload; raise --workers"
            + " or --think, or lower --slow-share, to soak without it.",
        name,
        slowMillis(),
        threads,
        callers,
        think,
        offered,
        slowSharePercent(),
        asleep);
  }
}
