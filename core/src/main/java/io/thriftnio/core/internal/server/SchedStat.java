package io.thriftnio.core.internal.server;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A thread's CPU time and whether it sleeps ({@link #HOLDERS}, the gate's safety valve); and the
 * calling thread's time waiting for a CPU, as Linux counts it ({@code /proc/thread-self/schedstat},
 * its second number: nanoseconds runnable but waiting on a run queue, preempted included), and its
 * CPU time ({@link ThreadMXBean#getCurrentThreadCpuTime}: the first number of that file is brought
 * up to date only at a tick or a switch, so a call of 100 us that ran without one read as no CPU at
 * all). Where either cannot be read (another system, an old kernel, a kernel without scheduler
 * statistics, a JVM without thread CPU time) {@link #available()} is {@code false} and nothing
 * reads them again.
 *
 * <p>Thread-safety: each read is of the calling thread's own counters; the flag only goes from true
 * to false.
 */
final class SchedStat {

  private static final Path FILE = Path.of("/proc/thread-self/schedstat");

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private static volatile boolean available = readable();

  private SchedStat() {}

  /** Whether the calling thread's counters can be read here. */
  static boolean available() {
    return available;
  }

  /**
   * Reads the calling thread's counters into {@code into} at the start of what they measure: {@code
   * [0]} nanoseconds on a CPU, {@code [1]} nanoseconds waiting for one. The CPU time is read last,
   * so that the reading of the file is not counted in what follows.
   *
   * @return whether they were read; once {@code false}, always
   */
  static boolean begin(long[] into) {
    return read(into, false);
  }

  /**
   * {@link #begin}'s counterpart at the end: the CPU time is read first, so that the reading of the
   * file is not counted in what preceded.
   */
  static boolean end(long[] into) {
    return read(into, true);
  }

  private static boolean read(long[] into, boolean cpuFirst) {
    if (!available) {
      return false;
    }
    try {
      long cpu = cpuFirst ? THREADS.getCurrentThreadCpuTime() : 0;
      if (parse(new String(Files.readAllBytes(FILE), StandardCharsets.US_ASCII), into)) {
        into[0] = cpuFirst ? cpu : THREADS.getCurrentThreadCpuTime();
        if (into[0] >= 0) {
          return true;
        }
      }
    } catch (IOException | RuntimeException e) {
      // the same below: not here
    }
    available = false;
    return false;
  }

  /** The safety valve's reads of a {@link RunGate}'s permit holders, on Linux. */
  static final RunGate.HolderProbe HOLDERS =
      new RunGate.HolderProbe() {
        @Override
        public int currentTid() {
          return TID.get();
        }

        @Override
        public long cpuNanos(Thread thread) {
          return SchedStat.cpuNanos(thread);
        }

        @Override
        public boolean asleep(int tid) {
          return SchedStat.asleep(tid);
        }
      };

  /** Each thread's id in the system, read once ({@code /proc/thread-self} links to its task). */
  private static final ThreadLocal<Integer> TID = ThreadLocal.withInitial(SchedStat::readTid);

  /**
   * {@code thread}'s CPU time, nanoseconds ({@link ThreadMXBean#getThreadCpuTime}); -1 where it
   * cannot be read, or the thread has ended.
   */
  @SuppressWarnings("deprecation") // Thread.getId: threadId() is Java 19's, this library's floor 17
  static long cpuNanos(Thread thread) {
    if (!available) {
      return -1;
    }
    try {
      return thread == Thread.currentThread()
          ? THREADS.getCurrentThreadCpuTime()
          : THREADS.getThreadCpuTime(thread.getId());
    } catch (RuntimeException e) {
      return -1;
    }
  }

  /**
   * Whether the task {@code tid} of this process is asleep ({@code /proc/self/task/TID/stat}'s
   * state: {@code S}, {@code D}, or any other than running or runnable, {@code R}); {@code false}
   * if it cannot be read.
   */
  static boolean asleep(int tid) {
    if (tid < 0) {
      return false;
    }
    try {
      String stat =
          new String(
              Files.readAllBytes(Path.of("/proc/self/task/" + tid + "/stat")),
              StandardCharsets.US_ASCII);
      return asleepIn(stat);
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /** {@code "1234 (a (name)) S 1 ..."}: whether the state after the name is other than R. */
  static boolean asleepIn(String stat) {
    int end = stat.lastIndexOf(')');
    if (end < 0 || end + 2 >= stat.length()) {
      return false;
    }
    return stat.charAt(end + 2) != 'R';
  }

  private static int readTid() {
    try {
      String link = Files.readSymbolicLink(Path.of("/proc/thread-self")).toString(); // PID/task/TID
      return Integer.parseInt(link.substring(link.lastIndexOf('/') + 1));
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * {@code "304989 23910 3\n"}: the first two numbers into {@code into}.
   *
   * @return whether the text held them
   */
  static boolean parse(String text, long[] into) {
    String[] parts = text.trim().split(" ");
    if (parts.length < 2) {
      return false;
    }
    try {
      into[0] = Long.parseLong(parts[0]);
      into[1] = Long.parseLong(parts[1]);
    } catch (NumberFormatException e) {
      return false;
    }
    return into[0] >= 0 && into[1] >= 0;
  }

  private static boolean readable() {
    try {
      if (!THREADS.isCurrentThreadCpuTimeSupported() || !THREADS.isThreadCpuTimeEnabled()) {
        return false;
      }
      return parse(new String(Files.readAllBytes(FILE), StandardCharsets.US_ASCII), new long[2]);
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }
}
