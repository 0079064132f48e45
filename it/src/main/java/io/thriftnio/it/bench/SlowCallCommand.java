package io.thriftnio.it.bench;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code slowcall}: the scenario of issue 23, "one slow call must not fail the calls beside it, nor
 * eject a healthy server", run once per {@code --callers} value ({@link SlowCallScenario}).
 *
 * <p>Exits with 1 whenever a run shows what the issue says must not happen: an echo call failed by
 * anything but its own timeout, an endpoint ejected, a connection opened after the warm-up, or a
 * slow call that did not time out. The command exists to check those claims, so a run that
 * contradicts them fails without a flag to ask for it.
 */
@Command(
    name = "slowcall",
    mixinStandardHelpOptions = true,
    versionProvider = BenchMain.Version.class,
    description = {
      "Runs issue 23's scenario: two servers in this JVM, one ThriftChannelPool over both, "
          + "--callers threads calling echo(300 B) in a loop and one more caller making "
          + "--slow-calls calls to sleep(--slow-millis), past --request-timeout, one a second.",
      "Prints a Markdown table (echo calls ok, failed because of another call, timed out behind "
          + "a slow call, timed out on their own, endpoints ejected, slow calls timed out, "
          + "connections opened after the warm-up, calls/s, the machine's other load) and writes "
          + "it to --out as slowcall.md and slowcall.csv. Exits with 1 if a call failed because "
          + "of another, an endpoint was ejected, a connection was opened after the warm-up or "
          + "a slow call did not time out."
    })
final class SlowCallCommand implements Callable<Integer> {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--server",
      paramLabel = "S",
      defaultValue = "netty",
      description = "netty or grizzly (default: ${DEFAULT-VALUE})")
  String server;

  @Option(
      names = "--strategy",
      paramLabel = "T",
      description = "same-thread, worker or leader-follower (default: worker)")
  String strategy;

  @Option(
      names = "--callers",
      paramLabel = "N",
      split = ",",
      defaultValue = "96",
      description =
          "echo caller threads; a list runs once per value, e.g. 16,96 (default: ${DEFAULT-VALUE})")
  List<Integer> callers;

  @Option(
      names = "--warmup",
      paramLabel = "D",
      defaultValue = "5s",
      converter = Cli.DurationConverter.class,
      description =
          "echo load before the measurement, so that the JIT has compiled the call path and the"
              + " connections the load needs are open; a cold JVM on a loaded machine times out"
              + " 300 ms calls for its first seconds (default: ${DEFAULT-VALUE})")
  Duration warmup;

  @Option(
      names = "--duration",
      paramLabel = "D",
      defaultValue = "6s",
      converter = Cli.DurationConverter.class,
      description = "the measurement (default: ${DEFAULT-VALUE})")
  Duration duration;

  @Option(
      names = "--request-timeout",
      paramLabel = "D",
      defaultValue = "300ms",
      converter = Cli.DurationConverter.class,
      description = "the channels' ClientOptions.callTimeout (default: ${DEFAULT-VALUE})")
  Duration requestTimeout;

  @Option(
      names = "--slow-millis",
      paramLabel = "MS",
      defaultValue = "1000",
      description =
          "how long each slow call sleeps on the server, in ms; more than --request-timeout "
              + "(default: ${DEFAULT-VALUE})")
  int slowMillis;

  @Option(
      names = "--slow-calls",
      paramLabel = "N",
      defaultValue = "3",
      description =
          "slow calls, one a second from 1 s into the measurement (default: ${DEFAULT-VALUE})")
  int slowCalls;

  @Option(
      names = "--workers",
      paramLabel = "N",
      description = "each server's worker threads (default: the server's own)")
  Integer workers;

  @Option(
      names = "--io-threads",
      paramLabel = "N",
      description = "each server's IO threads (default: the server's own)")
  Integer ioThreads;

  @Option(
      names = "--client-io-threads",
      paramLabel = "N",
      description =
          "the pool's Netty event loops, which also run the channels' call timers (default: one"
              + " per processor)")
  Integer clientIoThreads;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "output folder (default: it/target/slowcall)")
  Path out;

  @Override
  public Integer call() throws Exception {
    PrintWriter stdout = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    String name;
    try {
      name = validate();
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    ServerRow row = Rows.standard().server(name);
    if (row == null) {
      err.println("slowcall: " + name + " is not in this build");
      return 1;
    }
    List<SlowCallScenario.Result> results = new ArrayList<>();
    for (int n : callers) {
      err.printf(
          Locale.ROOT,
          "slowcall: %s x2, %d callers, warm-up %s, measuring %s, %d x sleep(%d ms) past a %d ms"
              + " request timeout%n",
          name,
          n,
          SlowCallReport.duration(warmup),
          SlowCallReport.duration(duration),
          slowCalls,
          slowMillis,
          requestTimeout.toMillis());
      SlowCallScenario.Result r =
          SlowCallScenario.run(
              row,
              new SlowCallScenario.Settings(
                  name,
                  n,
                  warmup,
                  duration,
                  requestTimeout,
                  slowMillis,
                  slowCalls,
                  workers,
                  ioThreads,
                  clientIoThreads != null ? clientIoThreads : NettyRows.clientIoThreads()));
      err.printf(
          Locale.ROOT,
          "slowcall: %d callers: %,d echo calls ok, %d failed because of another call, findings:"
              + " %s%n",
          n,
          r.echoes().ok(),
          r.echoes().failed(),
          r.findings().isEmpty() ? "none" : r.findings());
      results.add(r);
    }
    String markdown = SlowCallReport.markdown(results);
    stdout.print(markdown);
    stdout.flush();
    Path dir = out != null ? out : Path.of("it", "target", "slowcall");
    Files.createDirectories(dir);
    Path md = Files.writeString(dir.resolve("slowcall.md"), markdown, StandardCharsets.UTF_8);
    Path csv =
        Files.writeString(
            dir.resolve("slowcall.csv"), SlowCallReport.csv(results), StandardCharsets.UTF_8);
    err.println("slowcall: wrote " + List.of(md, csv));
    return results.stream().anyMatch(r -> !r.findings().isEmpty()) ? 1 : 0;
  }

  /** Checks the options; returns the server row's name. */
  private String validate() {
    if (!server.equals("netty") && !server.equals("grizzly")) {
      throw new IllegalArgumentException("server: " + server + " (expected: netty or grizzly)");
    }
    String name = ServeCommand.rowName(server, strategy);
    for (int n : callers) {
      if (n < 1 || n > 10_000) {
        throw new IllegalArgumentException("callers: " + n + " (expected: 1..10000)");
      }
    }
    if (clientIoThreads != null && (clientIoThreads < 1 || clientIoThreads > 64)) {
      throw new IllegalArgumentException(
          "client-io-threads: " + clientIoThreads + " (expected: 1..64)");
    }
    if (warmup.isZero() || duration.isZero()) {
      throw new IllegalArgumentException(
          "warmup: " + warmup + ", duration: " + duration + " (expected: both > 0)");
    }
    if (requestTimeout.isZero()) {
      throw new IllegalArgumentException("request-timeout: 0 (expected: > 0)");
    }
    if (slowMillis <= requestTimeout.toMillis()) {
      throw new IllegalArgumentException(
          "slow-millis: "
              + slowMillis
              + " (expected: > request-timeout "
              + requestTimeout.toMillis()
              + " ms, so that each slow call times out)");
    }
    // The last slow call starts at slowCalls seconds; its late reply must come within the run.
    long most = (duration.toMillis() - slowMillis) / SlowCallScenario.SLOW_CALL_SPACING.toMillis();
    if (slowCalls < 1 || slowCalls > most) {
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT,
              "slow-calls: %d (expected: 1..%d: one a second from 1 s, the last late reply"
                  + " (%d ms) within --duration %s)",
              slowCalls,
              Math.max(0, most),
              slowMillis,
              duration));
    }
    return name;
  }
}
