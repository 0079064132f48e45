package io.thriftnio.it.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Reads a process's CPU time from Linux's {@code /proc/PID/stat} and the CPUs a process may run on
 * from {@code /proc/self/status}.
 *
 * <p>{@code utime} and {@code stime} (fields 14 and 15 of {@code stat}) count every thread of the
 * process, the dead ones included, and the JVM's own threads (GC, JIT) too, in clock ticks of
 * {@code 1 / CLK_TCK} s (10 ms where {@code CLK_TCK} is 100). A window of several seconds keeps the
 * rounding under one percent. The JDK's {@code getProcessCpuTime()} has the same 10 ms steps on
 * Linux, so it is no more precise.
 */
final class ProcStat {

  /** Clock ticks per second; {@code getconf CLK_TCK}, 100 where that cannot run. */
  static final long TICKS_PER_SECOND = ticksPerSecond();

  private ProcStat() {}

  /**
   * User plus system CPU of a process, in ticks, from one {@code /proc/PID/stat} line.
   *
   * <p>The second field, the command name in parentheses, may hold spaces and parentheses itself,
   * so fields are counted from the last {@code ')'}.
   *
   * @throws IllegalArgumentException if the line is not a {@code stat} line
   */
  static long cpuTicks(String statLine) {
    int close = statLine.lastIndexOf(')');
    if (close < 0) {
      throw new IllegalArgumentException(
          "stat line: '" + statLine + "' (expected: PID (COMM) ...)");
    }
    // After ')' comes field 3 (state); utime and stime are fields 14 and 15.
    String[] f = statLine.substring(close + 1).trim().split("\\s+");
    if (f.length < 13) {
      throw new IllegalArgumentException(
          "stat line: " + f.length + " fields after the command (expected: >= 13)");
    }
    try {
      return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "stat line: utime '" + f[11] + "', stime '" + f[12] + "' (expected: numbers)", e);
    }
  }

  /**
   * CPU time of process {@code pid} so far, in nanoseconds (tick resolution), or -1 where there is
   * no {@code /proc} (not Linux) or the process is gone.
   */
  static long cpuNanos(long pid) {
    Path stat = Paths.get("/proc", Long.toString(pid), "stat");
    try {
      String line = Files.readString(stat, StandardCharsets.US_ASCII);
      return cpuTicks(line) * (TimeUnit.SECONDS.toNanos(1) / TICKS_PER_SECOND);
    } catch (IOException | IllegalArgumentException e) {
      // No /proc (not Linux) or the process has exited: the caller falls back or reports -1.
      return -1;
    }
  }

  /**
   * CPU time so far of the JIT compiler threads of JVM process {@code pid} (HotSpot names them
   * {@code C1 CompilerThreadN} and {@code C2 CompilerThreadN}; the kernel keeps 15 characters), in
   * nanoseconds (tick resolution); -1 where there is no {@code /proc} or the process is gone.
   * Compiler threads that have exited are not counted, which only makes a quiet JIT look quieter.
   */
  static long compilerThreadsCpuNanos(long pid) {
    Path tasks = Paths.get("/proc", Long.toString(pid), "task");
    long ticks = 0;
    try (var dirs = Files.list(tasks)) {
      for (Path task : (Iterable<Path>) dirs::iterator) {
        try {
          String comm = Files.readString(task.resolve("comm"), StandardCharsets.US_ASCII);
          if (comm.startsWith("C1 Compiler") || comm.startsWith("C2 Compiler")) {
            ticks += cpuTicks(Files.readString(task.resolve("stat"), StandardCharsets.US_ASCII));
          }
        } catch (IOException | IllegalArgumentException e) {
          // The thread exited between the listing and the read: it no longer compiles.
        }
      }
    } catch (IOException e) {
      // No /proc (not Linux) or the process has exited.
      return -1;
    }
    return ticks * (TimeUnit.SECONDS.toNanos(1) / TICKS_PER_SECOND);
  }

  /**
   * Busy time of one CPU so far in nanoseconds (tick resolution), every process together: {@code
   * user + nice + system + irq + softirq + steal} of its {@code cpuN} line in {@code /proc/stat};
   * -1 where there is none.
   */
  static long cpuBusyNanos(int cpu) {
    try {
      for (String line : Files.readAllLines(Paths.get("/proc/stat"), StandardCharsets.US_ASCII)) {
        if (line.startsWith("cpu" + cpu + " ")) {
          return busyTicks(line) * (TimeUnit.SECONDS.toNanos(1) / TICKS_PER_SECOND);
        }
      }
    } catch (IOException | IllegalArgumentException e) {
      // Not Linux: unknown, and the reports say so.
    }
    return -1;
  }

  /**
   * {@code user + nice + system + irq + softirq + steal} of a {@code cpuN} line of {@code
   * /proc/stat}, in ticks.
   *
   * @throws IllegalArgumentException if the line is not one
   */
  static long busyTicks(String cpuLine) {
    String[] f = cpuLine.trim().split("\\s+");
    if (f.length < 9 || !f[0].startsWith("cpu")) {
      throw new IllegalArgumentException(
          "cpu line: '"
              + cpuLine
              + "' (expected: cpuN user nice system idle iowait irq softirq"
              + " steal ...)");
    }
    try {
      return Long.parseLong(f[1])
          + Long.parseLong(f[2])
          + Long.parseLong(f[3])
          + Long.parseLong(f[6])
          + Long.parseLong(f[7])
          + Long.parseLong(f[8]);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("cpu line: '" + cpuLine + "' (expected: numbers)", e);
    }
  }

  /**
   * The CPUs this process may run on, from the {@code Cpus_allowed_list} line of {@code
   * /proc/self/status}, or an empty list where there is none.
   */
  static List<Integer> allowedCpus() {
    try {
      for (String line :
          Files.readAllLines(Paths.get("/proc/self/status"), StandardCharsets.US_ASCII)) {
        if (line.startsWith("Cpus_allowed_list:")) {
          return parseCpuList(line.substring(line.indexOf(':') + 1));
        }
      }
    } catch (IOException | IllegalArgumentException e) {
      // Not Linux, or an unreadable status: nothing known, so nothing is pinned.
    }
    return List.of();
  }

  /**
   * Parses a CPU list such as {@code 0-3,8,10-11}.
   *
   * @throws IllegalArgumentException if it is not one
   */
  static List<Integer> parseCpuList(String list) {
    List<Integer> cpus = new ArrayList<>();
    String s = list.trim();
    if (s.isEmpty()) {
      return cpus;
    }
    for (String part : s.split(",")) {
      String p = part.trim();
      try {
        int dash = p.indexOf('-');
        int from = Integer.parseInt(dash < 0 ? p : p.substring(0, dash));
        int to = dash < 0 ? from : Integer.parseInt(p.substring(dash + 1));
        if (from < 0 || to < from) {
          throw new IllegalArgumentException(
              "cpu list: " + list + " (expected: ascending ranges like 0-3,8)");
        }
        for (int c = from; c <= to; c++) {
          cpus.add(c);
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("cpu list: " + list + " (expected: like 0-3,8)", e);
      }
    }
    return cpus;
  }

  private static long ticksPerSecond() {
    try {
      Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
      if (p.waitFor(5, TimeUnit.SECONDS) && p.exitValue() == 0) {
        long ticks = Long.parseLong(out);
        if (ticks > 0 && ticks <= 1_000_000) {
          return ticks;
        }
      }
    } catch (IOException | NumberFormatException e) {
      // No getconf: Linux's USER_HZ is 100 on every common architecture.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 100;
  }
}
