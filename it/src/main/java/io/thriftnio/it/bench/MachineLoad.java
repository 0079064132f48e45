package io.thriftnio.it.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What the rest of the machine did while this process ran a measurement: the CPU time of every
 * process on the CPUs this one may use ({@code /proc/stat}), less this process's own ({@code
 * /proc/self/stat}), over the window. On a machine shared with builds this is the load a run
 * competed with. Linux only; elsewhere the figures are unknown (NaN, "?").
 *
 * @param cpus the CPUs this process may run on
 * @param busyNanos their busy time so far, every process together, or -1 if unknown
 * @param ownNanos this process's CPU time so far, or -1 if unknown
 * @param at {@link System#nanoTime()} of the reading
 */
record MachineLoad(List<Integer> cpus, long busyNanos, long ownNanos, long at) {

  /** A reading now. */
  static MachineLoad now() {
    List<Integer> cpus = ProcStat.allowedCpus();
    long busy = cpus.isEmpty() ? -1 : 0;
    for (int cpu : cpus) {
      long b = ProcStat.cpuBusyNanos(cpu);
      if (b < 0) {
        busy = -1;
        break;
      }
      busy += b;
    }
    long own = ProcStat.cpuNanos(ProcessHandle.current().pid());
    return new MachineLoad(
        cpus, busy, own >= 0 ? own : JvmStats.processCpuNanos(), System.nanoTime());
  }

  /**
   * CPUs kept busy by other processes between {@code earlier} and this reading, on average: 0.8
   * means that other processes used 0.8 of the {@link #cpus()} throughout; NaN if unknown.
   */
  double otherCpusSince(MachineLoad earlier) {
    long window = at - earlier.at;
    if (busyNanos < 0
        || earlier.busyNanos < 0
        || ownNanos < 0
        || earlier.ownNanos < 0
        || window <= 0) {
      return Double.NaN;
    }
    long other = (busyNanos - earlier.busyNanos) - (ownNanos - earlier.ownNanos);
    // Ticks of /proc/stat and of the process round apart: a few ms below zero is zero.
    return Math.min(cpus.size(), Math.max(0, other) / (double) window);
  }

  /** CPUs this process kept busy between {@code earlier} and this reading, on average; or NaN. */
  double ownCpusSince(MachineLoad earlier) {
    long window = at - earlier.at;
    if (ownNanos < 0 || earlier.ownNanos < 0 || window <= 0) {
      return Double.NaN;
    }
    return (ownNanos - earlier.ownNanos) / (double) window;
  }

  /** The 1-minute load average ({@code /proc/loadavg}), or "?" off Linux. */
  static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII).split(" ")[0];
    } catch (IOException | RuntimeException e) {
      return "?"; // not Linux: the report says so instead of a number
    }
  }
}
