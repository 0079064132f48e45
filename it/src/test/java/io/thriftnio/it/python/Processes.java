package io.thriftnio.it.python;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Runs a child process to completion with a bound on the wait; output goes to files under logs. */
final class Processes {

  private static final AtomicInteger RUNS = new AtomicInteger();

  /** How long a process killed after its timeout may take to go. */
  static final Duration KILL_WAIT = Duration.ofSeconds(10);

  private Processes() {}

  /** The outcome of one run: exit code (-1 when killed at the timeout) and everything printed. */
  record Result(
      List<String> command, int exitCode, boolean timedOut, String stdout, String stderr) {

    boolean succeeded() {
      return !timedOut && exitCode == 0;
    }

    /** The command, how it ended, and its output: for failure messages. */
    String describe() {
      return String.join(" ", command)
          + (timedOut ? "\n  timed out and was killed" : "\n  exit code " + exitCode)
          + "\n  --- stdout ---\n"
          + stdout
          + "\n  --- stderr ---\n"
          + stderr;
    }
  }

  /**
   * Runs {@code command} in {@code dir} with the extra {@code env}, waiting at most {@code
   * timeout}; a process still running then is killed. Standard input is empty.
   */
  static Result run(
      List<String> command, Path dir, Map<String, String> env, Duration timeout, Path logs)
      throws IOException, InterruptedException {
    Files.createDirectories(logs);
    // The module's tests run in two JVMs sharing logs: the pid keeps their files apart.
    String name = "run-" + ProcessHandle.current().pid() + "-" + RUNS.incrementAndGet();
    Path out = logs.resolve(name + ".out");
    Path err = logs.resolve(name + ".err");
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(nullDevice()))
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    applyEnvironment(builder.environment(), env);
    Process process = builder.start();
    boolean timedOut = false;
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        timedOut = true;
        killAndWait(process);
      }
    } finally {
      if (process.isAlive()) { // interrupted while waiting: do not leave the child behind
        killAndWait(process);
      }
    }
    return new Result(
        List.copyOf(command),
        timedOut ? -1 : process.exitValue(),
        timedOut,
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  /** Removes what could point the child at another Python installation, then adds {@code env}. */
  static void applyEnvironment(Map<String, String> target, Map<String, String> env) {
    target.remove("PYTHONPATH");
    target.remove("PYTHONHOME");
    target.remove("VIRTUAL_ENV");
    // The scripts import generated code from the source tree: leave no __pycache__ there.
    target.put("PYTHONDONTWRITEBYTECODE", "1");
    target.put("PYTHONUNBUFFERED", "1");
    target.put("PYTHONIOENCODING", "utf-8");
    target.putAll(env);
  }

  /** Kills {@code process} at once and waits a bounded time for it to go. */
  static void killAndWait(Process process) {
    process.destroyForcibly();
    try {
      process.waitFor(KILL_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static java.io.File nullDevice() {
    return new java.io.File(
        System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT).startsWith("windows")
            ? "NUL"
            : "/dev/null");
  }
}
