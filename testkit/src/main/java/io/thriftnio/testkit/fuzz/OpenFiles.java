package io.thriftnio.testkit.fuzz;

import java.io.File;

/** Counts this process's open file descriptors, for a check that sockets are closed. */
public final class OpenFiles {

  private OpenFiles() {}

  /** Open descriptors in {@code /proc/self/fd}, or -1 where there is no such directory. */
  public static int count() {
    String[] fds = new File("/proc/self/fd").list();
    return fds == null ? -1 : fds.length;
  }
}
