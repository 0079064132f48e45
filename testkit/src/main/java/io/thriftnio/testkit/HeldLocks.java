package io.thriftnio.testkit;

import java.lang.management.ManagementFactory;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.List;

/**
 * The library locks the current thread holds, for a test that checks a user callback (listener,
 * hook, metrics, interceptor, completion) runs under none: every monitor entered in a frame of an
 * {@code io.thriftnio} class (test code excluded: the testkit, and classes whose names end in
 * {@code Test}).
 *
 * <p>{@code java.util.concurrent} locks are not reported: the JVM names their type, never who took
 * them, and Netty 4.2's event loops hold one while they run. The library's own (the pools' {@code
 * EndpointUpkeep}) are checked by reading: no user code runs under them.
 */
public final class HeldLocks {
  private HeldLocks() {}

  /**
   * What the current thread holds, one line each: {@code Class.method:line locked TYPE@HASH}. Empty
   * if none.
   */
  public static List<String> ofLibrary() {
    long id = Thread.currentThread().getId();
    ThreadInfo info =
        ManagementFactory.getThreadMXBean().getThreadInfo(new long[] {id}, true, false)[0];
    List<String> held = new ArrayList<>();
    if (info == null) {
      // A virtual thread (a worker executor on Java 21+): the JVM's thread bean does not see it,
      // so nothing can be told; the same callbacks are checked on platform threads.
      return held;
    }
    for (MonitorInfo m : info.getLockedMonitors()) {
      StackTraceElement frame = m.getLockedStackFrame();
      String cls = frame == null ? "" : frame.getClassName();
      if (cls.startsWith("io.thriftnio.")
          && !cls.startsWith("io.thriftnio.testkit.")
          && !isTest(cls)) {
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
    return held;
  }

  private static boolean isTest(String cls) {
    int nested = cls.indexOf('$');
    String outer = nested < 0 ? cls : cls.substring(0, nested);
    return outer.endsWith("Test");
  }
}
