package io.thriftnio.it.bench;

import io.thriftnio.core.ServerStats;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Map;

/**
 * The line protocol of {@code serve --control}: the parent writes {@code stats} or {@code stats-gc}
 * on the child's stdin; the child answers on stdout with
 *
 * <pre>
 * stats open=N accepted=N rejected=N completed=N failed=N threads=N heap=BYTES fds=N
 * thread COUNT NAME-WITH-DIGITS-AS-#      (one line per group)
 * end
 * </pre>
 *
 * and to {@code cpu}, cheaply enough to be asked at the edges of a measurement window, with
 *
 * <pre>
 * cpu process_ns=N alloc_bytes=N completed=N
 * end
 * </pre>
 *
 * and to {@code handler}, where {@code serve --handler} gave one ({@link OverloadHandler}), with
 *
 * <pre>
 * handler runs=N late=N
 * end
 * </pre>
 *
 * (each -1 without one), where {@code process_ns} is the process's CPU time so far, {@code
 * alloc_bytes} the heap bytes allocated so far by its live threads ({@link
 * JvmStats#allocatedBytes()}) and {@code completed} the server's completed calls, each -1 where
 * unknown.
 *
 * <p>{@code stats-gc} collects garbage first, so {@code heap} is the live set. The server's
 * counters are -1 for rows that do not keep them. End of input closes the server and exits the
 * process: a parent that dies leaves no server behind.
 */
final class ServeControl {

  private ServeControl() {}

  /** Answers requests from {@code in} until it ends. */
  static void answer(RunningServer running, BufferedReader in, PrintStream out) throws IOException {
    answer(running, null, in, out);
  }

  /** Answers requests from {@code in} until it ends; {@code handler} may be {@code null}. */
  static void answer(
      RunningServer running, OverloadHandler handler, BufferedReader in, PrintStream out)
      throws IOException {
    String line;
    while ((line = in.readLine()) != null) {
      String request = line.trim();
      if (request.equals("stats") || request.equals("stats-gc")) {
        long heap = request.equals("stats-gc") ? JvmStats.heapUsedAfterGc() : JvmStats.heapUsed();
        StringBuilder sb = new StringBuilder(statsLine(running.stats(), heap)).append('\n');
        for (Map.Entry<String, Integer> g : JvmStats.threadGroups().entrySet()) {
          sb.append("thread ").append(g.getValue()).append(' ').append(g.getKey()).append('\n');
        }
        sb.append("end\n");
        synchronized (out) {
          out.print(sb);
          out.flush();
        }
      } else if (request.equals("cpu")) {
        String answer = cpuLine(running.stats()) + "\nend\n";
        synchronized (out) {
          out.print(answer);
          out.flush();
        }
      } else if (request.equals("handler")) {
        String answer =
            "handler runs="
                + (handler == null ? -1 : handler.runs())
                + " late="
                + (handler == null ? -1 : handler.lateRuns())
                + "\nend\n";
        synchronized (out) {
          out.print(answer);
          out.flush();
        }
      } else if (!request.isEmpty()) {
        synchronized (out) {
          out.println(
              "error unknown request: " + request + " (expected: stats, stats-gc, cpu or handler)");
          out.println("end");
          out.flush();
        }
      }
    }
  }

  static String cpuLine(ServerStats s) {
    return "cpu process_ns="
        + JvmStats.processCpuNanos()
        + " alloc_bytes="
        + JvmStats.allocatedBytes()
        + " completed="
        + (s == null ? -1 : s.completedCalls());
  }

  static String statsLine(ServerStats s, long heap) {
    return "stats open="
        + (s == null ? -1 : s.openConnections())
        + " accepted="
        + (s == null ? -1 : s.acceptedConnections())
        + " rejected="
        + (s == null ? -1 : s.rejectedConnections())
        + " completed="
        + (s == null ? -1 : s.completedCalls())
        + " failed="
        + (s == null ? -1 : s.failedCalls())
        + " threads="
        + JvmStats.threadCount()
        + " heap="
        + heap
        + " fds="
        + JvmStats.openFds();
  }
}
