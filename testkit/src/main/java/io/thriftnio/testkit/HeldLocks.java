package io.thriftnio.testkit;

import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.List;

/**
 * The library locks the current thread holds, for a test that checks a user callback (listener,
 * hook, metrics, completion) runs under none: every monitor entered in a frame of an {@code
 * io.thriftnio} class (test classes excluded: their names end in {@code Test}), and every {@code
 * ReentrantLock} or {@code ReentrantReadWriteLock} held, whoever took it.
 */
public final class HeldLocks {
  private HeldLocks() {}

  /**
   * What the current thread holds, one line each: {@code Class.method:line locked TYPE@HASH}, or
   * the lock's type for a lock held outside a monitor. Empty if none.
   */
  public static List<String> ofLibrary() {
    long id = Thread.currentThread().getId();
    ThreadInfo info =
        ManagementFactory.getThreadMXBean().getThreadInfo(new long[] {id}, true, true)[0];
    List<String> held = new ArrayList<>();
    for (MonitorInfo m : info.getLockedMonitors()) {
      StackTraceElement frame = m.getLockedStackFrame();
      String cls = frame == null ? "" : frame.getClassName();
      if (cls.startsWith("io.thriftnio.") && !isTest(cls)) {
        held.add(
            cls
                + "."
                + frame.getMethodName()
                + ":"
                + frame.getLineNumber()
                + " locked "
                + m.getClassName()
                + "@"
                + Integer.toHexString(m.getIdentityHashCode()));
      }
    }
    for (LockInfo l : info.getLockedSynchronizers()) {
      if (l.getClassName().startsWith("java.util.concurrent.locks.Reentrant")) {
        held.add(l.toString());
      }
    }
    return held;
  }

  private static boolean isTest(String cls) {
    int nested = cls.indexOf('$');
    String outer = nested < 0 ? cls : cls.substring(0, nested);
    return outer.endsWith("Test");
  }
}
