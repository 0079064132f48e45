package io.thriftnio.it.bench;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.pool.ThriftAsyncClientPool;
import io.thriftnio.pool.ThriftChannelPool;
import io.thriftnio.pool.ThriftClientPool;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code recovery}: how soon each pool serves again once its only server accepts again.
 *
 * <p>One Netty server and the three pools ({@link ThriftClientPool}, {@link ThriftAsyncClientPool},
 * {@link ThriftChannelPool}) in this JVM, each with the default settings, one endpoint and one
 * caller thread calling {@code fired()} every {@code --interval} whatever the outcome. For each
 * outage the server is closed (its listening socket with it, so connects are refused), stays down
 * the outage, and a new one starts on the same port; the figure is the time from that start
 * returning to each pool's first served call. The pool's {@link
 * io.thriftnio.pool.PoolStats#connectFailures()} over the outage counts its connect attempts
 * against the dead port: a connect storm would show there.
 */
@Command(
    name = "recovery",
    mixinStandardHelpOptions = true,
    versionProvider = BenchMain.Version.class,
    description = {
      "Measures, for ThriftClientPool, ThriftAsyncClientPool and ThriftChannelPool side by side "
          + "(default settings, one endpoint, one caller each), the time from a server accepting "
          + "again after an outage to each pool's first served call, and the connects each pool "
          + "made against the dead port during the outage.",
      "Prints a Markdown table and writes recovery.md and recovery.csv to --out."
    })
final class RecoveryCommand implements Callable<Integer> {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--outages",
      paramLabel = "D,D,...",
      split = ",",
      defaultValue = "1s,10s,60s,5m",
      converter = Cli.DurationConverter.class,
      description = "the outages, in order (default: ${DEFAULT-VALUE})")
  List<Duration> outages;

  @Option(
      names = "--interval",
      paramLabel = "D",
      defaultValue = "20ms",
      converter = Cli.DurationConverter.class,
      description = "each caller's pause after every call (default: ${DEFAULT-VALUE})")
  Duration interval;

  @Option(
      names = "--max-recovery",
      paramLabel = "D",
      defaultValue = "90s",
      converter = Cli.DurationConverter.class,
      description =
          "how long to wait for a pool's first served call after each outage before "
              + "recording none (default: ${DEFAULT-VALUE})")
  Duration maxRecovery;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "output folder (default: it/target/recovery)")
  Path out;

  /** Every pool served a call within this before the first outage, or the run stops. */
  private static final Duration READY = Duration.ofSeconds(30);

  private ThriftServer server;

  @Override
  public Integer call() throws Exception {
    PrintWriter stdout = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (outages.isEmpty() || outages.stream().anyMatch(Duration::isZero) || interval.isZero()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "outages: " + outages + ", interval: " + interval + " (expected: every one > 0)");
    }
    Path dir = out != null ? out : Path.of("it", "target", "recovery");
    InetSocketAddress address = start(new InetSocketAddress(MatrixRunner.LOOPBACK, 0));
    List<String[]> rows = new ArrayList<>();
    try (NettyClientIo resources = NettyClientIo.create(1);
        ThriftClientPool<BenchService.Client> sync =
            ThriftClientPool.builder(BenchService.Client::new).endpoints(address).build();
        ThriftAsyncClientPool<BenchService.AsyncClient> asyncClients =
            ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                .endpoints(address)
                .build();
        ThriftChannelPool<BenchService.Client> channels =
            ThriftChannelPool.builder(BenchService.Client::new)
                .io(resources)
                .options(ClientOptions.defaults())
                .endpoints(address)
                .build()) {
      long every = interval.toNanos();
      List<RecoveryCaller> callers =
          List.of(
              new RecoveryCaller(
                  "ThriftClientPool", () -> sync.call(c -> c.fired()), sync::stats, every),
              new RecoveryCaller(
                  "ThriftAsyncClientPool",
                  () -> await(asyncClients.<Long>call((c, cb) -> c.fired(cb))),
                  asyncClients::stats,
                  every),
              new RecoveryCaller(
                  "ThriftChannelPool",
                  () -> await(channels.call(c -> c.send_fired(), BenchService.Client::recv_fired)),
                  channels::stats,
                  every));
      callers.forEach(RecoveryCaller::start);
      try {
        for (RecoveryCaller c : callers) {
          c.watchFrom(System.nanoTime());
          if (c.awaitFirstServed(READY.toNanos()) == 0) {
            err.println(
                "recovery: "
                    + c.pool
                    + " served nothing before the first outage: "
                    + c.lastError());
            return 1;
          }
        }
        for (Duration outage : outages) {
          rows.addAll(outage(address, outage, callers, err));
        }
      } finally {
        for (RecoveryCaller c : callers) {
          c.close();
        }
      }
    } finally {
      if (server != null) {
        server.close();
      }
    }
    String table = table(rows);
    stdout.print(table);
    stdout.flush();
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("recovery.md"), table, StandardCharsets.UTF_8);
    StringBuilder csv =
        new StringBuilder("outage_ms,pool,first_served_ms,connect_failures,failed_calls\n");
    for (String[] r : rows) {
      csv.append(String.join(",", r)).append('\n');
    }
    Files.writeString(dir.resolve("recovery.csv"), csv, StandardCharsets.UTF_8);
    err.println(
        "recovery: wrote " + dir.resolve("recovery.md") + ", " + dir.resolve("recovery.csv"));
    return 0;
  }

  /** One outage; a row per pool: outage ms, pool, first served ms (or "none"), connects, fails. */
  private List<String[]> outage(
      InetSocketAddress address, Duration outage, List<RecoveryCaller> callers, PrintWriter err)
      throws Exception {
    long[] connects = new long[callers.size()];
    long[] fails = new long[callers.size()];
    for (int i = 0; i < callers.size(); i++) {
      connects[i] = callers.get(i).connectFailures();
      fails[i] = callers.get(i).failed();
    }
    server.close();
    server = null;
    err.printf(Locale.ROOT, "recovery: server down for %s%n", outage);
    LockSupport.parkNanos(outage.toNanos());
    start(address);
    long up = System.nanoTime();
    List<String[]> rows = new ArrayList<>();
    for (int i = 0; i < callers.size(); i++) {
      RecoveryCaller c = callers.get(i);
      connects[i] = c.connectFailures() - connects[i];
      fails[i] = c.failed() - fails[i];
      c.watchFrom(up);
    }
    for (int i = 0; i < callers.size(); i++) {
      RecoveryCaller c = callers.get(i);
      long first = c.awaitFirstServed(maxRecovery.toNanos() - (System.nanoTime() - up));
      String served = first == 0 ? "none" : String.valueOf((first - up) / 1_000_000);
      rows.add(
          new String[] {
            String.valueOf(outage.toMillis()),
            c.pool,
            served,
            String.valueOf(connects[i]),
            String.valueOf(fails[i])
          });
      err.printf(
          Locale.ROOT,
          "recovery: after %s down, %s served in %s ms; %d connects failed during the outage%s%n",
          outage,
          c.pool,
          served,
          connects[i],
          first == 0 ? " (last error: " + c.lastError() + ")" : "");
    }
    return rows;
  }

  private static String table(List<String[]> rows) {
    StringBuilder sb = new StringBuilder();
    sb.append("| outage | pool | first call served after the server is back (ms) ")
        .append("| connect attempts during the outage | calls failed during the outage |\n")
        .append("|---|---|---:|---:|---:|\n");
    for (String[] r : rows) {
      sb.append("| ")
          .append(
              Duration.ofMillis(Long.parseLong(r[0]))
                  .toString()
                  .substring(2)
                  .toLowerCase(Locale.ROOT))
          .append(" | ")
          .append(r[1])
          .append(" | ")
          .append(r[2])
          .append(" | ")
          .append(r[3])
          .append(" | ")
          .append(r[4])
          .append(" |\n");
    }
    return sb.toString();
  }

  private static void await(Future<?> f) throws Exception {
    try {
      f.get(40, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  /** Starts the server on {@code address}; the port may be held a moment by the last server. */
  private InetSocketAddress start(InetSocketAddress address)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try {
        server =
            NettyThriftServer.builder()
                .processor(new BenchService.Processor<>(new BenchHandler()))
                .ioStrategy(IoStrategy.SAME_THREAD)
                .ioThreads(1)
                .bind(address)
                .build()
                .start();
        return (InetSocketAddress) server.localAddress();
      } catch (IOException | RuntimeException e) {
        boolean bind = e instanceof BindException || e.getCause() instanceof BindException;
        if (!bind || System.nanoTime() - deadline > 0) {
          throw e;
        }
        Thread.sleep(10);
      }
    }
  }
}
