package io.thriftnio.it.bench;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The bench CLI, {@code java -jar it/target/thrift-nio-bench.jar}:
 *
 * <pre>
 * serve  --server S [--strategy T] [--protocol P] [--host H] [--port N] [--workers N]
 * matrix [--preset quick|seed|full|sleep|pool|dbwork] [--servers ...] [--clients ...]
 *        [--sizes 300,3k,3m] [--protocols binary,compact] [--connections 1,20,40]
 *        [--warmup 2s] [--duration 5s] [--target HOST:PORT] [--out DIR]
 * efficiency [--servers ...] [--scenarios tsocket-40,async-8x32,seq-1,client-transports]
 *        [--rounds 3] [--warmup 2s] [--duration 5s] [--size 300] [--protocol compact]
 *        [--io-threads 1] [--workers N] [--client-cpu N] [--server-cpu N] [--no-pin] [--out DIR]
 * overload [--preset quick] [--servers ROW[?NAME=VALUE&...],...] [--handlers cpu:100us,sleep:5ms]
 *        [--levels 0.5,1,1.5,2,3] [--deadline D] [--server-option NAME=VALUE] [--wire header|framed]
 *        [--connections 64] [--warmup 1s] [--duration 3s] [--no-pin] [--out DIR]
 * soak   --server netty|grizzly [--strategy T] [--connections 1000] [--duration 10m]
 *        [--kill-every 15s] [--kill-count 20] [--restart-every 2m] [--sample 5s]
 *        [--slow-share 0.5] [--slow-millis MS] [--out DIR]
 * slowcall [--server netty|grizzly] [--strategy T] [--callers 16,96] [--warmup 5s]
 *        [--duration 6s] [--request-timeout 300ms] [--slow-millis 1000] [--slow-calls 3]
 *        [--out DIR]
 * idle   --server netty|grizzly [--strategy T] [--connections 10000] [--probe-rate 200]
 *        [--probe-duration 10s]
 * recovery [--outages 1s,10s,60s,5m] [--interval 20ms] [--max-recovery 90s] [--out DIR]
 * contention [--scenarios waiters] [--rounds 3] [--waiters 1000,10000] [--borrow-timeout 2s]
 * </pre>
 *
 * {@code --help} works on every command.
 */
@Command(
    name = "thrift-nio-bench",
    mixinStandardHelpOptions = true,
    versionProvider = BenchMain.Version.class,
    description =
        "Serves and benchmarks Thrift server rows: thrift-nio's Netty and Grizzly "
            + "servers, the stock libthrift servers and a raw echo ceiling.",
    subcommands = {
      ServeCommand.class,
      MatrixCommand.class,
      EfficiencyCommand.class,
      OverloadCommand.class,
      SoakCommand.class,
      SlowCallCommand.class,
      IdleCommand.class,
      RecoveryCommand.class,
      ContentionCommand.class,
      CommandLine.HelpCommand.class
    })
public final class BenchMain implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /**
   * Runs the CLI and exits with its status.
   *
   * @param args the command line
   */
  public static void main(String[] args) {
    // The transports log each server start and stop at INFO; between progress lines that is
    // noise. -Dorg.slf4j.simpleLogger.defaultLogLevel=info brings it back.
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
    PrintWriter out = new PrintWriter(System.out, true);
    System.exit(execute(args, out, new PrintWriter(System.err, true)));
  }

  /**
   * Runs the CLI without exiting, for tests.
   *
   * @param args the command line
   * @param out where usage and help go
   * @param err where errors go
   * @return the exit status: 0 on success, 2 on a usage error, 1 on a failure
   */
  static int execute(String[] args, PrintWriter out, PrintWriter err) {
    CommandLine cli = new CommandLine(new BenchMain());
    cli.setOut(out);
    cli.setErr(err);
    cli.setCaseInsensitiveEnumValuesAllowed(true);
    return cli.execute(args);
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** The version printed by {@code --version}. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = BenchMain.class.getPackage().getImplementationVersion();
      return new String[] {"thrift-nio-bench " + (v != null ? v : "0.1.0-SNAPSHOT")};
    }
  }
}
