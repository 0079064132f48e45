package io.thriftnio.core.util.internal;

import java.util.function.UnaryOperator;

/**
 * The hop of a call's continuation to another thread, carried inside what the call's interceptors
 * made current ({@code ClientInterceptor.attach}): while a call's future completes on the IO
 * thread, the library's async bridge that hands the rest to the caller's executor wraps that task
 * with {@link #wrap}, so the interceptors attach again there, around the callback. Not an API.
 */
public final class Continuations {
  private static final ThreadLocal<UnaryOperator<Runnable>> COMPLETING = new ThreadLocal<>();

  private Continuations() {}

  /** Runs {@code completion} with {@code around} as the wrapper of the hops it makes. */
  public static void completing(UnaryOperator<Runnable> around, Runnable completion) {
    UnaryOperator<Runnable> before = COMPLETING.get();
    COMPLETING.set(around);
    try {
      completion.run();
    } finally {
      if (before == null) {
        COMPLETING.remove();
      } else {
        COMPLETING.set(before);
      }
    }
  }

  /** {@code task}, run inside the continuation of the call completing on this thread, if any. */
  public static Runnable wrap(Runnable task) {
    UnaryOperator<Runnable> around = COMPLETING.get();
    return around == null ? task : around.apply(task);
  }
}
