package io.thriftnio.pool;

import java.io.File;

/** Open file descriptors of this process, and waiting for an asynchronous effect. */
final class Fds {
  private Fds() {}

  static int count() {
    String[] names = new File("/proc/self/fd").list();
    return names == null ? -1 : names.length;
  }

  /** What each descriptor points at, for failure messages. */
  static String describe() {
    StringBuilder sb = new StringBuilder();
    File[] fds = new File("/proc/self/fd").listFiles();
    if (fds != null) {
      for (File f : fds) {
        try {
          sb.append(f.getName())
              .append("->")
              .append(java.nio.file.Files.readSymbolicLink(f.toPath()))
              .append(' ');
        } catch (java.io.IOException e) {
          sb.append(f.getName()).append("->? ");
        }
      }
    }
    return sb.toString();
  }
}
