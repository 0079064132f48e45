package io.thriftnio.it.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code serve --control} in a child JVM on this JVM's classpath: its own descriptor limit, its own
 * threads and heap, so that what the parent measures of the server is the server alone.
 */
final class ServeProcess implements AutoCloseable {

  private static final Pattern LISTENING = Pattern.compile("listening on (.+):(\\d+)");

  /** Put in the line queue, by identity, when the child's output ends: it exited or closed it. */
  private static final String ENDED = new String("<stdout ended>");

  /**
   * One answer to {@code stats}: the server's counters (-1 where unknown) and the child JVM's
   * threads, heap and descriptors.
   */
  record Snapshot(
      long open,
      long accepted,
      long rejected,
      long completed,
      long failed,
      int threads,
      long heap,
      int fds,
      Map<String, Integer> threadGroups) {}

  /**
   * One answer to {@code cpu}.
   *
   * @param processCpuNanos the child's CPU time so far (10 ms steps on Linux), or -1
   * @param allocatedBytes heap bytes allocated so far by the child's live threads, or -1
   * @param completed the server's completed calls, or -1 for rows that do not count them
   */
  record CpuSample(long processCpuNanos, long allocatedBytes, long completed) {}

  private final Process process;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final Writer stdin;
  private final InetSocketAddress address;

  private ServeProcess(Process process, Duration startTimeout) throws IOException {
    this.process = process;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Thread reader = new Thread(this::drain, "bench-serve-process-stdout");
    reader.setDaemon(true);
    reader.start();
    String first;
    try {
      first = lines.poll(startTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new IOException("interrupted while waiting for the serve process to listen", e);
    }
    if (first == ENDED) {
      throw ended("listening");
    }
    Matcher m = LISTENING.matcher(first == null ? "" : first);
    if (!m.matches()) {
      process.destroyForcibly();
      throw new IOException(
          "serve process: first line "
              + (first == null
                  ? "missing after " + startTimeout.toMillis() + " ms"
                  : "'" + first + "'")
              + " (expected: listening on HOST:PORT)");
    }
    this.address = new InetSocketAddress(m.group(1), Integer.parseInt(m.group(2)));
  }

  /**
   * Starts {@code serve --control --port 0} with {@code serveArgs} in a child JVM with {@code
   * jvmArgs}; its stderr goes to ours.
   */
  static ServeProcess start(List<String> jvmArgs, List<String> serveArgs) throws IOException {
    return start(List.of(), jvmArgs, serveArgs);
  }

  /**
   * Starts {@code serve --control --port 0} with {@code serveArgs} in a child JVM with {@code
   * jvmArgs}, the command preceded by {@code prefix} (for example {@code taskset -c 1}).
   */
  static ServeProcess start(List<String> prefix, List<String> jvmArgs, List<String> serveArgs)
      throws IOException {
    return start(prefix, javaCommand(), jvmArgs, serveArgs);
  }

  /**
   * Starts {@code serve --control --port 0} with {@code serveArgs} in a child JVM run by {@code
   * java} (a row's {@link ServerRow#childJava()}), on this JVM's class path.
   */
  static ServeProcess start(
      List<String> prefix, String java, List<String> jvmArgs, List<String> serveArgs)
      throws IOException {
    List<String> command = new ArrayList<>(prefix);
    command.add(java);
    command.addAll(jvmArgs);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(BenchMain.class.getName());
    command.add("serve");
    command.add("--control");
    command.add("--port");
    command.add("0");
    command.addAll(serveArgs);
    Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    return new ServeProcess(p, Duration.ofSeconds(60));
  }

  /**
   * The java launcher of this JVM ({@code ProcessHandle.current().info().command()}), else {@code
   * java.home/bin/java}.
   */
  static String javaCommand() {
    return ProcessHandle.current()
        .info()
        .command()
        .orElse(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
  }

  InetSocketAddress address() {
    return address;
  }

  long pid() {
    return process.pid();
  }

  /** Asks for a snapshot; {@code gc} collects garbage in the child first. */
  synchronized Snapshot stats(boolean gc) throws IOException {
    stdin.write(gc ? "stats-gc\n" : "stats\n");
    stdin.flush();
    Map<String, Long> values = new HashMap<>();
    Map<String, Integer> groups = new LinkedHashMap<>();
    while (true) {
      String line;
      try {
        line = lines.poll(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for the serve process's stats", e);
      }
      if (line == ENDED) {
        throw ended("its stats");
      }
      if (line == null) {
        throw new IOException(
            "serve process "
                + process.pid()
                + ": no stats within 30 s"
                + (process.isAlive() ? "" : " (exited with " + process.exitValue() + ")"));
      }
      if (line.equals("end")) {
        break;
      }
      if (line.startsWith("stats ")) {
        for (String kv : line.substring(6).split(" ")) {
          int eq = kv.indexOf('=');
          values.put(kv.substring(0, eq), Long.parseLong(kv.substring(eq + 1)));
        }
      } else if (line.startsWith("thread ")) {
        String rest = line.substring(7);
        int space = rest.indexOf(' ');
        groups.put(rest.substring(space + 1), Integer.parseInt(rest.substring(0, space)));
      } else if (line.startsWith("error ")) {
        throw new IOException("serve process: " + line);
      }
    }
    return new Snapshot(
        values.getOrDefault("open", -1L),
        values.getOrDefault("accepted", -1L),
        values.getOrDefault("rejected", -1L),
        values.getOrDefault("completed", -1L),
        values.getOrDefault("failed", -1L),
        values.getOrDefault("threads", -1L).intValue(),
        values.getOrDefault("heap", -1L),
        values.getOrDefault("fds", -1L).intValue(),
        groups);
  }

  /** Asks for the child's CPU time, allocated bytes and completed calls. */
  synchronized CpuSample cpu() throws IOException {
    stdin.write("cpu\n");
    stdin.flush();
    Map<String, Long> values = new HashMap<>();
    while (true) {
      String line = nextLine("cpu");
      if (line.equals("end")) {
        break;
      }
      if (line.startsWith("cpu ")) {
        for (String kv : line.substring(4).split(" ")) {
          int eq = kv.indexOf('=');
          values.put(kv.substring(0, eq), Long.parseLong(kv.substring(eq + 1)));
        }
      } else if (line.startsWith("error ")) {
        throw new IOException("serve process: " + line);
      }
    }
    return new CpuSample(
        values.getOrDefault("process_ns", -1L),
        values.getOrDefault("alloc_bytes", -1L),
        values.getOrDefault("completed", -1L));
  }

  /**
   * Asks for the {@code serve --handler} counters: {@code echo} runs so far and those that started
   * after their payload's deadline, each -1 without such a handler.
   */
  synchronized long[] handlerCounts() throws IOException {
    stdin.write("handler\n");
    stdin.flush();
    long[] out = {-1, -1};
    while (true) {
      String line = nextLine("handler counts");
      if (line.equals("end")) {
        return out;
      }
      if (line.startsWith("handler ")) {
        for (String kv : line.substring(8).split(" ")) {
          int eq = kv.indexOf('=');
          long v = Long.parseLong(kv.substring(eq + 1));
          if (kv.startsWith("runs=")) {
            out[0] = v;
          } else if (kv.startsWith("late=")) {
            out[1] = v;
          }
        }
      } else if (line.startsWith("error ")) {
        throw new IOException("serve process: " + line);
      }
    }
  }

  private String nextLine(String what) throws IOException {
    String line;
    try {
      line = lines.poll(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for the serve process's " + what, e);
    }
    if (line == ENDED) {
      throw ended("its " + what);
    }
    if (line == null) {
      throw new IOException(
          "serve process "
              + process.pid()
              + ": no "
              + what
              + " within 30 s"
              + (process.isAlive() ? "" : " (exited with " + process.exitValue() + ")"));
    }
    return line;
  }

  /**
   * Kills the child at once (SIGKILL): no shutdown hook runs, so its server neither deregisters nor
   * drains; the kernel resets its connections. Waits until it is gone.
   */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** Closes the child's stdin (it then closes its server and exits) and waits for it. */
  @Override
  public void close() {
    try {
      stdin.close();
    } catch (IOException e) {
      // The child is gone already: nothing left to tell it.
    }
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  private void drain() {
    try (BufferedReader r =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        lines.add(line);
      }
    } catch (IOException e) {
      lines.add("<stdout failed: " + e + ">");
    } finally {
      lines.add(ENDED); // whoever waits for a line hears at once that none will come
    }
  }

  /**
   * The child's output ended before {@code what}: it failed (a bad argument, a port in use, a
   * missing class) and said why on its stderr, which is ours. Waits briefly for its exit code.
   */
  private IOException ended(String what) {
    lines.add(ENDED); // for the next reader too
    String exit;
    try {
      exit =
          process.waitFor(5, TimeUnit.SECONDS)
              ? "exited with " + process.exitValue()
              : "closed its output and still runs; killed";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      exit = "interrupted while waiting for its exit";
    }
    process.destroyForcibly();
    return new IOException(
        "serve process " + process.pid() + " " + exit + " before " + what + " (its stderr above)");
  }
}
