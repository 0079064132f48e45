package io.thriftnio.it.bench;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.TreeMap;

/**
 * What this JVM holds right now: heap, file descriptors, threads. The soak and idle commands sample
 * it; {@code serve --control} reports it for a server running in its own process.
 */
final class JvmStats {

  private JvmStats() {}

  /** Heap in use now, without forcing a collection: what a sampler sees between GCs. */
  static long heapUsed() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /**
   * Heap in use after {@code System.gc()} twice, a short pause between: the live set, give or take
   * what finalization and reference processing release late.
   */
  static long heapUsedAfterGc() {
    System.gc();
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    System.gc();
    return heapUsed();
  }

  /** Open file descriptors of this process ({@code /proc/self/fd}), or -1 off Linux. */
  static int openFds() {
    String[] fds = new File("/proc/self/fd").list();
    // list() opens a descriptor for the directory itself while it reads; it is not ours to count.
    return fds == null ? -1 : fds.length - 1;
  }

  /** Live threads of this JVM. */
  static int threadCount() {
    return ManagementFactory.getThreadMXBean().getThreadCount();
  }

  /**
   * Live threads grouped by name with digits replaced by {@code #}: {@code thrift-nio-netty-io-#}
   * and its count, so that a fixed pool shows as one line however many connections it serves.
   */
  static Map<String, Integer> threadGroups() {
    Map<String, Integer> groups = new TreeMap<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      groups.merge(t.getName().replaceAll("[0-9]+", "#"), 1, Integer::sum);
    }
    return groups;
  }

  /**
   * Bytes allocated on the heap so far by the live threads of this JVM (HotSpot's per-thread
   * counters, {@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes}), or -1 where the JVM
   * does not count them. Threads that have ended are no longer counted, so a difference over a
   * window is exact only for threads that live through it.
   */
  static long allocatedBytes() {
    java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    if (!(mx instanceof com.sun.management.ThreadMXBean)) {
      return -1;
    }
    com.sun.management.ThreadMXBean hotspot = (com.sun.management.ThreadMXBean) mx;
    if (!hotspot.isThreadAllocatedMemorySupported() || !hotspot.isThreadAllocatedMemoryEnabled()) {
      return -1;
    }
    long sum = 0;
    for (long bytes : hotspot.getThreadAllocatedBytes(mx.getAllThreadIds())) {
      if (bytes > 0) {
        sum += bytes; // -1 marks a thread that ended between the two calls
      }
    }
    return sum;
  }

  /**
   * CPU time of this process so far in nanoseconds ({@code
   * com.sun.management.OperatingSystemMXBean#getProcessCpuTime}; 10 ms steps on Linux), or -1.
   */
  static long processCpuNanos() {
    java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.OperatingSystemMXBean
        ? ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime()
        : -1;
  }

  static double mib(long bytes) {
    return bytes / (1024.0 * 1024.0);
  }
}
