package io.thriftnio.it.python;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A running {@code bench_server.py}: a stock Python {@code TThreadedServer}, framed transport,
 * serving {@code BenchService} with {@code BenchHandler}'s semantics. {@link #close()} sends
 * SIGTERM and waits for the process to exit, killing it if it does not within {@link #STOP_WAIT}.
 * Its standard input stays open while it runs: if this JVM dies, the server sees end of file and
 * exits too.
 */
public final class PythonServer implements AutoCloseable {

  /** How long the server may take to print {@code listening on HOST:PORT}. */
  public static final Duration START_TIMEOUT = Duration.ofSeconds(30);

  /** How long the server may take to exit after SIGTERM. */
  public static final Duration STOP_WAIT = Duration.ofSeconds(10);

  private static final Pattern LISTENING = Pattern.compile("^listening on (.+):(\\d+)$");
  private static final AtomicInteger SERVERS = new AtomicInteger();

  private final Process process;
  private final InetSocketAddress address;
  private final Path stderrFile;
  private final StringBuffer stdout;
  private Integer exitCode;

  private PythonServer(
      Process process, InetSocketAddress address, Path stderrFile, StringBuffer stdout) {
    this.process = process;
    this.address = address;
    this.stderrFile = stderrFile;
    this.stdout = stdout;
  }

  static PythonServer start(List<String> command, Path dir, Path logs)
      throws IOException, InterruptedException {
    Path stderrFile = logs.resolve("server-" + SERVERS.incrementAndGet() + ".err");
    ProcessBuilder builder =
        new ProcessBuilder(command).directory(dir.toFile()).redirectError(stderrFile.toFile());
    Processes.applyEnvironment(builder.environment(), Map.of());
    Process process = builder.start();
    StringBuffer stdout = new StringBuffer();
    CompletableFuture<String> firstLine = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                  firstLine.complete(line);
                  stdout.append(line).append('\n');
                }
                firstLine.completeExceptionally(new IOException("stdout closed"));
              } catch (IOException e) {
                firstLine.completeExceptionally(e);
              }
            },
            "python-peer-server-stdout-" + process.pid());
    reader.setDaemon(true);
    reader.start();
    String line;
    try {
      line = firstLine.get(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      Processes.killAndWait(process);
      throw new IOException(
          "bench_server.py did not print 'listening on HOST:PORT' within "
              + START_TIMEOUT.toSeconds()
              + " s ("
              + e
              + "); "
              + describe(command, process, stdout, stderrFile));
    } catch (InterruptedException e) {
      Processes.killAndWait(process);
      throw e;
    }
    Matcher m = LISTENING.matcher(line.strip());
    if (!m.matches()) {
      Processes.killAndWait(process);
      throw new IOException(
          "bench_server.py's first line is '"
              + line
              + "' (expected: listening on HOST:PORT); "
              + describe(command, process, stdout, stderrFile));
    }
    return new PythonServer(
        process,
        new InetSocketAddress(m.group(1), Integer.parseInt(m.group(2))),
        stderrFile,
        stdout);
  }

  /** The address the server listens on (127.0.0.1 and the port it chose). */
  public InetSocketAddress address() {
    return address;
  }

  /** The port the server chose. */
  public int port() {
    return address.getPort();
  }

  /** Whether the process is still running. */
  public boolean isAlive() {
    return process.isAlive();
  }

  /** Everything the server printed on stderr so far: handler errors, the stop line. */
  public String stderr() {
    try {
      return Files.readString(stderrFile, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(cannot read " + stderrFile + ": " + e + ")";
    }
  }

  /**
   * The exit code after {@link #close()}: 0 for a clean exit on SIGTERM; -1 when it had to be
   * killed.
   */
  public synchronized int exitCode() {
    if (exitCode == null) {
      throw new IllegalStateException("bench_server.py (pid " + process.pid() + ") not closed");
    }
    return exitCode;
  }

  /**
   * Sends SIGTERM, waits up to {@link #STOP_WAIT}, kills it after that. Idempotent. Interrupted
   * while waiting, it kills the process and returns with the interrupt flag set.
   */
  @Override
  public synchronized void close() {
    if (exitCode != null) {
      return;
    }
    // SIGTERM on Unix-likes. Not Process.destroy(): that also closes the child's stdin, and the
    // server would then stop for end of input, racing the signal.
    process.toHandle().destroy();
    boolean exited;
    try {
      exited = process.waitFor(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      exited = false;
    }
    if (exited) {
      exitCode = process.exitValue();
    } else {
      Processes.killAndWait(process);
      exitCode = -1;
    }
    try {
      process.getOutputStream().close();
    } catch (IOException e) {
      // Safe to ignore: the process has exited; this only releases our end of its stdin pipe.
    }
  }

  @Override
  public String toString() {
    return "bench_server.py pid " + process.pid() + " on " + address;
  }

  private static String describe(
      List<String> command, Process process, StringBuffer stdout, Path stderrFile) {
    String err;
    try {
      err = Files.readString(stderrFile, StandardCharsets.UTF_8);
    } catch (IOException e) {
      err = "(cannot read " + stderrFile + ": " + e + ")";
    }
    return String.join(" ", command)
        + (process.isAlive() ? "" : "\n  exit code " + process.exitValue())
        + "\n  --- stdout ---\n"
        + stdout
        + "\n  --- stderr ---\n"
        + err;
  }
}
