package io.thriftnio.it.bench;

import java.io.File;
import java.util.List;

/**
 * Where the {@code efficiency} command runs its two sides: the load generator on one CPU, every
 * server child on another, each through {@code taskset -c}; or unpinned, with the reason.
 *
 * @param clientCpu the load generator's CPU, or -1 when unpinned
 * @param serverCpu the server children's CPU, or -1 when unpinned
 * @param taskset the {@code taskset} executable, or {@code null} when unpinned
 * @param note how the run is pinned, or why it is not, for the reports
 */
record Pinning(int clientCpu, int serverCpu, String taskset, String note) {

  boolean pinned() {
    return taskset != null;
  }

  /** The command prefix that runs a server child on its CPU; empty when unpinned. */
  List<String> serverPrefix() {
    return pinned() ? List.of(taskset, "-c", Integer.toString(serverCpu)) : List.of();
  }

  /** The command prefix that runs the load generator on its CPU; empty when unpinned. */
  List<String> clientPrefix() {
    return pinned() ? List.of(taskset, "-c", Integer.toString(clientCpu)) : List.of();
  }

  static Pinning unpinned(String why) {
    return new Pinning(-1, -1, null, "unpinned: " + why);
  }

  /**
   * Pins the load generator to {@code clientCpu} and servers to {@code serverCpu}, each -1 for the
   * first and second CPU this process may run on; unpinned when {@code taskset} is missing or fewer
   * than two CPUs are allowed.
   */
  static Pinning decide(int clientCpu, int serverCpu) {
    String taskset = findOnPath("taskset");
    if (taskset == null) {
      return unpinned(
          "taskset is not on the PATH (util-linux); server and load generator share"
              + " every CPU");
    }
    List<Integer> allowed = ProcStat.allowedCpus();
    if (clientCpu < 0 || serverCpu < 0) {
      if (allowed.size() < 2) {
        return unpinned(
            allowed.size()
                + " CPU(s) allowed ("
                + allowed
                + "); server and load"
                + " generator share it");
      }
      clientCpu = clientCpu < 0 ? allowed.get(0) : clientCpu;
      serverCpu =
          serverCpu < 0
              ? (allowed.get(0) == clientCpu ? allowed.get(1) : allowed.get(0))
              : serverCpu;
    }
    if (clientCpu == serverCpu) {
      throw new IllegalArgumentException(
          "server-cpu: "
              + serverCpu
              + " (expected: a CPU other than client-cpu "
              + clientCpu
              + ")");
    }
    return pinned(clientCpu, serverCpu, taskset);
  }

  static Pinning pinned(int clientCpu, int serverCpu, String taskset) {
    return new Pinning(
        clientCpu,
        serverCpu,
        taskset,
        "load generator on CPU " + clientCpu + ", servers on CPU " + serverCpu + " (taskset -c)");
  }

  static String findOnPath(String name) {
    String path = System.getenv("PATH");
    if (path == null) {
      return null;
    }
    for (String dir : path.split(File.pathSeparator)) {
      File f = new File(dir, name);
      if (f.isFile() && f.canExecute()) {
        return f.getAbsolutePath();
      }
    }
    return null;
  }
}
