package io.thriftnio.testkit;

import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;

/**
 * Virtual threads for tests that run on Java 21+, reached by reflection because the project
 * compiles for Java 17. Callers guard with {@code @EnabledForJreRange(min = JRE.JAVA_21)}.
 */
public final class VirtualThreads {
  private VirtualThreads() {}

  /** {@code Executors.newVirtualThreadPerTaskExecutor()}. */
  public static ExecutorService newPerTaskExecutor() {
    try {
      Method m = java.util.concurrent.Executors.class.getMethod("newVirtualThreadPerTaskExecutor");
      return (ExecutorService) m.invoke(null);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("virtual threads need Java 21+: " + Runtime.version(), e);
    }
  }

  /** {@code thread.isVirtual()}; false before Java 21. */
  public static boolean isVirtual(Thread thread) {
    try {
      return (Boolean) Thread.class.getMethod("isVirtual").invoke(thread);
    } catch (NoSuchMethodException e) {
      return false;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }
}
