package io.thriftnio.it.python;

import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds a Python 3 interpreter and keeps a virtual environment with the pinned packages of {@code
 * requirements.txt} in it: created once, reused while every pinned version is installed.
 */
final class PythonEnvironment {

  static final Duration PROBE_TIMEOUT = Duration.ofSeconds(30);
  static final Duration VENV_TIMEOUT = Duration.ofMinutes(2);
  static final Duration PIP_TIMEOUT = Duration.ofMinutes(4);

  private static final Pattern PIN = Pattern.compile("^([A-Za-z0-9][A-Za-z0-9._-]*)==(\\S+)\\s*$");
  private static final boolean WINDOWS =
      System.getProperty("os.name").toLowerCase(Locale.ROOT).startsWith("windows");

  private final Path venv;
  private final Path logs;

  PythonEnvironment(Path venv, Path logs) {
    this.venv = venv;
    this.logs = logs;
  }

  /** Thrown when no usable Python 3 is there; the message says what was tried and why not. */
  static final class UnavailableException extends Exception {
    private static final long serialVersionUID = 1L;

    UnavailableException(String message) {
      super(message);
    }
  }

  /**
   * The interpreter to build the venv from: {@code explicit} when given (a path or a name on PATH),
   * else the first of {@code python3}, {@code python} on PATH that is Python 3.8+ with the {@code
   * venv} and {@code ensurepip} modules.
   */
  static String findInterpreter(String explicit, String path, Path logs)
      throws UnavailableException, IOException, InterruptedException {
    List<String> candidates = new ArrayList<>();
    if (explicit != null && !explicit.isBlank()) {
      candidates.add(explicit);
    } else {
      for (String name : List.of("python3", "python")) {
        for (String dir : (path == null ? "" : path).split(File.pathSeparator)) {
          if (dir.isEmpty()) {
            continue;
          }
          for (String suffix : WINDOWS ? List.of(".exe", "") : List.of("")) {
            Path exe = Path.of(dir, name + suffix);
            if (Files.isRegularFile(exe) && Files.isExecutable(exe)) {
              candidates.add(exe.toString());
            }
          }
        }
      }
    }
    if (candidates.isEmpty()) {
      throw new UnavailableException("no python3 or python on PATH (" + path + ")");
    }
    List<String> rejected = new ArrayList<>();
    for (String candidate : candidates) {
      Processes.Result probe;
      try {
        probe =
            Processes.run(
                List.of(
                    candidate,
                    "-c",
                    "import sys, venv, ensurepip; print('%d.%d.%d' % sys.version_info[:3]);"
                        + " sys.exit(0 if sys.version_info >= (3, 8) else 3)"),
                logs,
                Map.of(),
                PROBE_TIMEOUT,
                logs);
      } catch (IOException e) { // not runnable: say so and try the next one
        rejected.add(candidate + ": " + e.getMessage());
        continue;
      }
      if (probe.succeeded()) {
        return candidate;
      }
      rejected.add(
          candidate
              + ": "
              + (probe.exitCode() == 3
                  ? "Python " + probe.stdout().strip() + " (expected: 3.8 or newer)"
                  : "not a usable Python 3 with venv and ensurepip (Debian: python3-venv): "
                      + lastLine(probe.stderr())));
    }
    throw new UnavailableException("no usable Python 3: " + String.join("; ", rejected));
  }

  /** The venv's interpreter. */
  Path python() {
    return WINDOWS ? venv.resolve("Scripts").resolve("python.exe") : venv.resolve("bin/python");
  }

  /**
   * Makes sure the venv exists with every pin of {@code requirements} installed: reuses it when so,
   * else (re)creates it from {@code interpreter} and pip-installs the file. Holds a file lock next
   * to the venv meanwhile: the module's tests run in two JVMs, and each may come here first.
   *
   * @throws UnavailableException when the venv cannot be created or pip fails
   */
  void ensure(String interpreter, Path requirements)
      throws UnavailableException, IOException, InterruptedException {
    Path lockFile = venv.resolveSibling(venv.getFileName() + ".lock");
    Files.createDirectories(venv.getParent());
    try (FileChannel channel =
            FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held = channel.lock()) {
      ensureHeld(interpreter, requirements);
    }
  }

  private void ensureHeld(String interpreter, Path requirements)
      throws UnavailableException, IOException, InterruptedException {
    Map<String, String> pins = pins(requirements);
    if (installed(pins)) {
      return;
    }
    Processes.Result created =
        Processes.run(
            List.of(interpreter, "-m", "venv", "--clear", venv.toString()),
            logs,
            Map.of(),
            VENV_TIMEOUT,
            logs);
    if (!created.succeeded()) {
      throw new UnavailableException("cannot create a venv: " + created.describe());
    }
    Processes.Result pip =
        Processes.run(
            List.of(
                python().toString(),
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                "--no-input",
                "-q",
                "-r",
                requirements.toString()),
            logs,
            Map.of(),
            PIP_TIMEOUT,
            logs);
    if (!pip.succeeded()) {
      throw new UnavailableException(
          "pip install -r " + requirements + " failed: " + pip.describe());
    }
    if (!installed(pins)) {
      throw new UnavailableException(
          "pip install -r " + requirements + " succeeded but " + pins + " are not all installed");
    }
  }

  /** Whether the venv has exactly the pinned version of every package in {@code pins}. */
  private boolean installed(Map<String, String> pins) throws IOException, InterruptedException {
    if (!Files.isExecutable(python())) {
      return false;
    }
    List<String> command = new ArrayList<>();
    command.add(python().toString());
    command.add("-c");
    command.add(
        "import sys, importlib.metadata as m\n"
            + "for name in sys.argv[1:]:\n"
            + "    try:\n"
            + "        print(name + '==' + m.version(name))\n"
            + "    except m.PackageNotFoundError:\n"
            + "        print(name + '==')\n");
    command.addAll(pins.keySet());
    Processes.Result result = Processes.run(command, logs, Map.of(), PROBE_TIMEOUT, logs);
    if (!result.succeeded()) {
      return false;
    }
    Map<String, String> found = new LinkedHashMap<>();
    for (String line : result.stdout().strip().split("\\R")) {
      int eq = line.indexOf("==");
      if (eq > 0) {
        found.put(line.substring(0, eq), line.substring(eq + 2));
      }
    }
    return found.equals(pins);
  }

  /** The {@code name==version} lines of a requirements file. */
  static Map<String, String> pins(Path requirements) throws IOException {
    Map<String, String> pins = new LinkedHashMap<>();
    for (String line : Files.readAllLines(requirements)) {
      Matcher m = PIN.matcher(line.strip());
      if (m.matches()) {
        pins.put(m.group(1), m.group(2));
      }
    }
    if (pins.isEmpty()) {
      throw new IOException(
          requirements + " pins no package (expected: lines like thrift==0.25.0)");
    }
    return pins;
  }

  private static String lastLine(String text) {
    String[] lines = text.strip().split("\\R");
    return lines[lines.length - 1];
  }
}
