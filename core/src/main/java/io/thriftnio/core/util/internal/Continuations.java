package io.thriftnio.core.util.internal;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
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

  /**
   * {@link #completing(UnaryOperator, Runnable)} for a call whose future is {@code future}: a
   * {@link CallFuture} also keeps {@code around}, for the dependents registered after it completed,
   * which run on their own thread, outside this one's completion.
   */
  public static void completing(
      UnaryOperator<Runnable> around, CompletableFuture<?> future, Runnable completion) {
    if (future instanceof CallFuture) {
      ((CallFuture<?>) future).around = around;
    }
    completing(around, completion);
  }

  /**
   * Gives {@code future}, a {@link CallFuture} about to be completed on this thread, the wrapper of
   * the call completing here, if any: a continuation that completes a future of its own (the async
   * bridge's) passes the call's scopes on to that future's late dependents.
   */
  public static void adopt(CompletableFuture<?> future) {
    UnaryOperator<Runnable> around = COMPLETING.get();
    if (around != null && future instanceof CallFuture) {
      ((CallFuture<?>) future).around = around;
    }
  }

  /** {@code task}, run inside the continuation of the call completing on this thread, if any. */
  public static Runnable wrap(Runnable task) {
    UnaryOperator<Runnable> around = COMPLETING.get();
    return around == null ? task : around.apply(task);
  }

  /**
   * {@code task}, a dependent of {@code completed}, run inside the continuation of the call that
   * completed it: the one {@code completed} keeps if it is a {@link CallFuture} (so a reply that
   * came before the dependent was registered still counts), else the one completing on this thread.
   */
  public static Runnable wrap(Runnable task, CompletableFuture<?> completed) {
    if (completed instanceof CallFuture) {
      UnaryOperator<Runnable> around = ((CallFuture<?>) completed).around;
      if (around != null) {
        return around.apply(task);
      }
    }
    return wrap(task);
  }

  /**
   * The future of one call that keeps the continuation wrapper it was completed with, set before it
   * completes. {@code from}'s wrapper is given to {@code to} by {@link #relay}.
   *
   * @param <T> the result type
   */
  public static final class CallFuture<T> extends CompletableFuture<T> {
    private volatile UnaryOperator<Runnable> around;
  }

  /** {@link #relay(CompletableFuture, CompletableFuture, Consumer)} with nothing to run first. */
  public static <T> void relay(CompletableFuture<T> from, CompletableFuture<T> to) {
    relay(from, to, failure -> {});
  }

  /**
   * Completes {@code to} as {@code from} completes, with the continuation wrapper {@code from}
   * keeps, once {@code first} has run with {@code from}'s failure ({@code null}: a result): whoever
   * sees {@code to} complete finds what {@code first} did.
   */
  public static <T> void relay(
      CompletableFuture<T> from, CompletableFuture<T> to, Consumer<Throwable> first) {
    from.whenComplete(
        (value, failure) -> {
          first.accept(failure);
          keep(from, to);
          if (failure != null) {
            to.completeExceptionally(failure);
          } else {
            to.complete(value);
          }
        });
  }

  /**
   * Gives {@code to} the continuation wrapper {@code from} keeps, when both are {@link CallFuture}s
   * and {@code from} keeps one: for a future completed by hand from another's outcome, before it is
   * completed. A {@code from} without one leaves {@code to}'s as it was.
   */
  public static void keep(CompletableFuture<?> from, CompletableFuture<?> to) {
    if (from instanceof CallFuture && to instanceof CallFuture) {
      UnaryOperator<Runnable> around = ((CallFuture<?>) from).around;
      if (around != null) {
        ((CallFuture<?>) to).around = around;
      }
    }
  }

  /**
   * {@code future.exceptionallyCompose(recovery)} as a {@link CallFuture} that keeps the wrapper of
   * the future it completes from: {@code future}'s, or that of the one {@code recovery} gave if it
   * keeps one (a plain future made from the failure, a refusal's reply say, keeps {@code
   * future}'s). A plain derived future would lose it for the dependents registered after it
   * completed.
   */
  public static <T> CompletableFuture<T> recover(
      CompletableFuture<T> future, Function<Throwable, CompletableFuture<T>> recovery) {
    CallFuture<T> result = new CallFuture<>();
    future.whenComplete(
        (value, failure) -> {
          if (failure == null) {
            keep(future, result);
            result.complete(value);
            return;
          }
          keep(future, result);
          CompletableFuture<T> next;
          try {
            next = recovery.apply(failure);
          } catch (Throwable t) {
            result.completeExceptionally(t);
            return;
          }
          relay(next, result);
        });
    return result;
  }
}
