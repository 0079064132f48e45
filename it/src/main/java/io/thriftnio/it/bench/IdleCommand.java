package io.thriftnio.it.bench;

import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchService;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.apache.thrift.transport.TTransport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code idle}: many idle connections against one of this library's servers, and what they cost.
 *
 * <p>The server runs in a child JVM ({@code serve --control}), so that its threads, heap and
 * descriptors are its own and each side needs one descriptor per connection, not two. Steps:
 *
 * <ol>
 *   <li>a probe client calls {@code echo(300 B)} on its own connection at a steady rate: latency
 *       without idle connections;
 *   <li>{@code --connections} plain TCP connections are opened and left idle;
 *   <li>the probe runs again: latency with them open; the server's threads, heap after GC,
 *       descriptors and open connections are read before and after;
 *   <li>every idle connection is checked still open (not reset or closed by the server), then all
 *       are reset (no TIME_WAIT left behind).
 * </ol>
 *
 * Exit status 1 if a connection was lost or the server does not count all of them open.
 */
@Command(
    name = "idle",
    mixinStandardHelpOptions = true,
    versionProvider = BenchMain.Version.class,
    description = {
      "Opens many idle TCP connections to a netty or grizzly server in a child JVM, with a probe "
          + "client calling at a steady rate; reports the server's threads, heap after GC and "
          + "descriptors, and the probe's p50/p99 with and without the idle connections."
    })
final class IdleCommand implements Callable<Integer> {

  private static final int PROBE_PAYLOAD = Payloads.SMALL;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(names = "--server", required = true, paramLabel = "S", description = "netty or grizzly")
  String server;

  @Option(
      names = "--strategy",
      paramLabel = "T",
      description = "same-thread, worker or leader-follower (default: worker)")
  String strategy;

  @Option(
      names = "--connections",
      paramLabel = "N",
      defaultValue = "10000",
      description = "idle connections to open (default: ${DEFAULT-VALUE})")
  int connections;

  @Option(
      names = "--protocol",
      paramLabel = "P",
      defaultValue = "binary",
      description = "binary, compact or json (default: ${DEFAULT-VALUE})")
  String protocol;

  @Option(
      names = "--probe-rate",
      paramLabel = "N",
      defaultValue = "200",
      description = "probe calls per second (default: ${DEFAULT-VALUE})")
  int probeRate;

  @Option(
      names = "--probe-duration",
      paramLabel = "D",
      defaultValue = "10s",
      converter = Cli.DurationConverter.class,
      description =
          "how long the probe measures, without and then with the idle connections "
              + "(default: ${DEFAULT-VALUE})")
  Duration probeDuration;

  @Option(
      names = "--io-threads",
      paramLabel = "N",
      description = "the server's IO threads (default: the server's own)")
  Integer ioThreads;

  @Option(
      names = "--workers",
      paramLabel = "N",
      description = "the server's worker threads (default: the server's own)")
  Integer workers;

  @Option(
      names = "--server-jvm-arg",
      paramLabel = "ARG",
      defaultValue = "-Xmx512m",
      description = "an argument for the server's JVM; repeatable (default: ${DEFAULT-VALUE})")
  List<String> serverJvmArgs;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "also write idle-SERVER-STRATEGY.md here")
  Path out;

  @Override
  public Integer call() throws Exception {
    PrintWriter stdout = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    String name;
    try {
      if (!server.equals("netty") && !server.equals("grizzly")) {
        throw new IllegalArgumentException("server: " + server + " (expected: netty or grizzly)");
      }
      name = ServeCommand.rowName(server, strategy);
      Protocols.factory(protocol);
      check("connections", connections, 1, 60_000);
      check("probe-rate", probeRate, 1, 100_000);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    List<String> serveArgs =
        new ArrayList<>(
            List.of(
                "--server",
                name,
                "--protocol",
                protocol,
                "--connections",
                String.valueOf(connections + 16)));
    if (ioThreads != null) {
      serveArgs.addAll(List.of("--io-threads", ioThreads.toString()));
    }
    if (workers != null) {
      serveArgs.addAll(List.of("--workers", workers.toString()));
    }
    List<SocketChannel> idle = new ArrayList<>(connections);
    try (ServeProcess child = ServeProcess.start(serverJvmArgs, serveArgs)) {
      InetSocketAddress address = child.address();
      err.println("idle: " + name + " in process " + child.pid() + " on " + address);
      TTransport transport = StockRows.openFramedSocket(address, Duration.ofSeconds(30));
      try {
        BenchService.Client probe =
            new BenchService.Client(Protocols.factory(protocol).getProtocol(transport));
        probe(probe, Math.min(2_000, probeRate * 2L), Duration.ofSeconds(2)); // warm-up
        ServeProcess.Snapshot before = child.stats(true);
        Probe without = probe(probe, probeRate, probeDuration);
        err.println("idle: probe without idle connections: " + latency(without));

        long openStart = System.nanoTime();
        String openFailure = open(address, idle);
        double openSeconds = (System.nanoTime() - openStart) / 1e9;
        err.printf(
            Locale.ROOT,
            "idle: opened %,d connections in %.1f s%s%n",
            idle.size(),
            openSeconds,
            openFailure == null ? "" : "; then failed: " + openFailure);
        ServeProcess.Snapshot accepted = awaitOpen(child, idle.size() + 1, Duration.ofSeconds(60));

        Probe with = probe(probe, probeRate, probeDuration);
        err.println("idle: probe with idle connections: " + latency(with));
        ServeProcess.Snapshot after = child.stats(true);
        int stillOpen = stillOpen(idle);

        String report =
            report(
                name,
                before,
                accepted,
                after,
                without,
                with,
                idle.size(),
                openSeconds,
                openFailure,
                stillOpen);
        stdout.print(report);
        stdout.flush();
        if (out != null) {
          Files.createDirectories(out);
          Files.writeString(
              out.resolve("idle-" + Charts.slug(name.replace('/', '-')) + ".md"),
              report,
              StandardCharsets.UTF_8);
        }
        boolean ok =
            openFailure == null && stillOpen == connections && after.open() == connections + 1;
        return ok ? 0 : 1;
      } finally {
        transport.close();
        for (SocketChannel c : idle) {
          reset(c);
        }
      }
    }
  }

  /** Opens {@code connections} channels into {@code idle}; the first failure's message, or null. */
  private String open(InetSocketAddress address, List<SocketChannel> idle) {
    for (int i = 0; i < connections; i++) {
      SocketChannel c = null;
      try {
        c = SocketChannel.open();
        c.connect(address);
        idle.add(c);
      } catch (IOException e) {
        if (c != null) {
          reset(c);
        }
        return "connection " + (i + 1) + " of " + connections + " to " + address + ": " + e;
      }
    }
    return null;
  }

  /** Waits until the server counts {@code expected} open connections, or the timeout passes. */
  private static ServeProcess.Snapshot awaitOpen(
      ServeProcess child, long expected, Duration timeout) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    ServeProcess.Snapshot s = child.stats(false);
    while (s.open() < expected && System.nanoTime() < deadline) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
      s = child.stats(false);
    }
    return s;
  }

  /**
   * Idle channels that are neither closed nor reset by the server: a read finds no bytes, no EOF.
   */
  private static int stillOpen(List<SocketChannel> idle) {
    int open = 0;
    ByteBuffer one = ByteBuffer.allocate(1);
    for (SocketChannel c : idle) {
      try {
        c.configureBlocking(false);
        one.clear();
        if (c.read(one) == 0) {
          open++;
        }
      } catch (IOException e) {
        // Reset by the peer: counted as lost, which is what the check reports.
      }
    }
    return open;
  }

  /** Closes with a reset, so that no TIME_WAIT is left to hold the local port. */
  private static void reset(SocketChannel c) {
    try {
      c.setOption(StandardSocketOptions.SO_LINGER, 0);
    } catch (IOException e) {
      // Already closed or reset: close() below still releases the descriptor.
    }
    try {
      c.close();
    } catch (IOException e) {
      // Closing a reset channel can fail; the descriptor is released either way.
    }
  }

  /**
   * What one probe phase measured, in microseconds: {@code call} from send to reply, {@code
   * scheduled} from the moment the call was due (a stall delays the calls after it, and they show
   * it: no coordinated omission), and the machine's load average around it.
   */
  record Probe(
      Histogram call, Histogram scheduled, double seconds, String loadBefore, String loadAfter) {
    double rate() {
      return call.getTotalCount() / seconds;
    }
  }

  /** Calls at {@code rate} per second for {@code duration}, one at a time. */
  private static Probe probe(BenchService.Client client, long rate, Duration duration)
      throws Exception {
    String loadBefore = loadAverage();
    Histogram call = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
    Histogram scheduled = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
    long period = TimeUnit.SECONDS.toNanos(1) / rate;
    long start = System.nanoTime();
    long end = start + duration.toNanos();
    ByteBuffer payload = Payloads.of(PROBE_PAYLOAD, 1);
    long next = start;
    while (next < end && System.nanoTime() < end + duration.toNanos()) {
      long wait = next - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
      long sent = System.nanoTime();
      ByteBuffer reply = client.echo(payload.duplicate());
      long done = System.nanoTime();
      record(call, done - sent);
      record(scheduled, done - next);
      if (!Payloads.check(reply, PROBE_PAYLOAD, 1)) {
        throw new IOException("probe: echo returned a different payload");
      }
      next += period;
    }
    return new Probe(call, scheduled, (System.nanoTime() - start) / 1e9, loadBefore, loadAverage());
  }

  private static void record(Histogram h, long nanos) {
    h.recordValue(Math.min(Math.max(0, nanos / 1_000), h.getHighestTrackableValue()));
  }

  /** The 1-minute load average ({@code /proc/loadavg}), or "?" off Linux. */
  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    } catch (IOException | RuntimeException e) {
      return "?"; // not Linux: the report says so instead of a number
    }
  }

  private static String latency(Probe p) {
    return String.format(
        Locale.ROOT,
        "%,d calls (%.0f/s), p50 %,d us, p99 %,d us, max %,d us; from when due: p50 %,d us, "
            + "p99 %,d us; load average %s -> %s",
        p.call().getTotalCount(),
        p.rate(),
        p.call().getValueAtPercentile(50),
        p.call().getValueAtPercentile(99),
        p.call().getMaxValue(),
        p.scheduled().getValueAtPercentile(50),
        p.scheduled().getValueAtPercentile(99),
        p.loadBefore(),
        p.loadAfter());
  }

  private String report(
      String name,
      ServeProcess.Snapshot before,
      ServeProcess.Snapshot accepted,
      ServeProcess.Snapshot after,
      Probe without,
      Probe with,
      int opened,
      double openSeconds,
      String openFailure,
      int stillOpen) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "## idle: %s, %,d idle connections, probe %d calls/s for %s per phase%n%n",
            name,
            connections,
            probeRate,
            probeDuration));
    sb.append("| server (child JVM) | without idle connections | with idle connections |\n");
    sb.append("|---|---:|---:|\n");
    row(sb, "open connections (ServerStats)", before.open(), after.open());
    row(sb, "JVM threads", before.threads(), after.threads());
    sb.append(
        String.format(
            Locale.ROOT,
            "| heap used after GC (MiB) | %.1f | %.1f |%n",
            JvmStats.mib(before.heap()),
            JvmStats.mib(after.heap())));
    row(sb, "open descriptors", before.fds(), after.fds());
    row(
        sb,
        "probe p50 (us)",
        without.call().getValueAtPercentile(50),
        with.call().getValueAtPercentile(50));
    row(
        sb,
        "probe p99 (us)",
        without.call().getValueAtPercentile(99),
        with.call().getValueAtPercentile(99));
    row(sb, "probe max (us)", without.call().getMaxValue(), with.call().getMaxValue());
    row(
        sb,
        "probe p99 from when due (us)",
        without.scheduled().getValueAtPercentile(99),
        with.scheduled().getValueAtPercentile(99));
    sb.append(
        String.format(
            Locale.ROOT,
            "| probe calls/s achieved | %.0f | %.0f |%n",
            without.rate(),
            with.rate()));
    sb.append(
        String.format(
            Locale.ROOT,
            "| machine load average (1 min), start -> end | %s -> %s " + "| %s -> %s |%n",
            without.loadBefore(),
            without.loadAfter(),
            with.loadBefore(),
            with.loadAfter()));
    sb.append('\n');
    sb.append(
        String.format(
            Locale.ROOT,
            "- opened %,d of %,d connections in %.1f s%s%n",
            opened,
            connections,
            openSeconds,
            openFailure == null ? "" : "; failed: " + openFailure));
    sb.append(
        String.format(
            Locale.ROOT,
            "- server counted %,d open (expected %,d: idle + probe) once they were opened, %,d "
                + "after the second probe phase; accepted %,d, rejected %,d%n",
            accepted.open(),
            opened + 1,
            after.open(),
            after.accepted(),
            after.rejected()));
    sb.append(
        String.format(
            Locale.ROOT,
            "- still open at the end (no EOF, no reset): %,d of %,d%n",
            stillOpen,
            opened));
    sb.append(
        String.format(
            Locale.ROOT,
            "- heap per idle connection: about %,.0f bytes%n",
            opened == 0 ? 0.0 : (after.heap() - before.heap()) / (double) opened));
    sb.append("\nServer threads by name with the idle connections open (digits as #):\n\n");
    sb.append("| threads | name |\n|---:|---|\n");
    for (Map.Entry<String, Integer> g : after.threadGroups().entrySet()) {
      sb.append("| ").append(g.getValue()).append(" | `").append(g.getKey()).append("` |\n");
    }
    sb.append('\n');
    return sb.toString();
  }

  private static void row(StringBuilder sb, String what, long without, long with) {
    sb.append(String.format(Locale.ROOT, "| %s | %,d | %,d |%n", what, without, with));
  }

  private static void check(String name, int value, int min, int max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          name + ": " + value + " (expected: " + min + ".." + max + ")");
    }
  }
}
