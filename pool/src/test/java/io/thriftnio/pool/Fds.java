package io.thriftnio.pool;

import java.io.File;
import java.time.Duration;
import java.util.function.BooleanSupplier;

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

  /**
   * Polls until {@code condition} holds or {@code timeout} passes; for effects with no event to
   * wait on (a peer noticing a close, the kernel releasing a descriptor).
   */
  static boolean await(BooleanSupplier condition, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        return false;
      }
      Thread.sleep(5);
    }
    return true;
  }
}
