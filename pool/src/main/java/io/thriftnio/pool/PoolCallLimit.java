package io.thriftnio.pool;

import io.thriftnio.core.internal.AdaptiveLimit;
import io.thriftnio.core.util.internal.CallTimeoutException;
import io.thriftnio.core.util.internal.Continuations;
import java.util.concurrent.CompletableFuture;

/**
 * A pool's adaptive limit on its calls in flight ({@link PoolConfig.Builder#adaptiveLimit}), as the
 * three pools take and give back its permits: one per call (retries, resends and hedges of the call
 * included), from the call's start to its end. What a call's end tells the limit is decided here,
 * once for the three pools: an answer (a result or the handler's exception) is a latency sample; a
 * refusal "not run", a passed deadline or timeout, or a wait for a connection that timed out is a
 * sign of overload; anything else (a connect failure, a closing pool) says nothing.
 */
final class PoolCallLimit {

  private final String pool;
  private final AdaptiveLimit limit; // null: off

  private PoolCallLimit(String pool, AdaptiveLimit limit) {
    this.pool = pool;
    this.limit = limit;
  }

  /** The limit {@code config} asks for, of the pool named {@code pool}; off when not set. */
  static PoolCallLimit of(String pool, PoolConfig config) {
    int max = config.adaptiveLimit();
    return new PoolCallLimit(pool, max == 0 ? null : AdaptiveLimit.forPool(max));
  }

  /**
   * A permit for one call; {@code null} when the limit is off.
   *
   * @throws PoolException when the calls in flight are at the limit
   */
  AdaptiveLimit.Permit acquire() throws PoolException {
    if (limit == null) {
      return null;
    }
    AdaptiveLimit.Permit permit = limit.tryAcquire();
    if (permit == null) {
      throw new PoolException(
          "pool '"
              + pool
              + "': call refused at the adaptive limit ("
              + limit.state()
              + "): the pool's calls are slower than usual",
          null);
    }
    return permit;
  }

  /**
   * Completes {@code caller} as {@code call} completes, once {@code permit} ({@code null}: none) is
   * given back: whoever sees the caller's future complete (a waiting thread, a callback that starts
   * the next call) finds the permit free. The caller's own end (a cancel) ends {@code call} too.
   * Through {@link Continuations#relay}, so a {@code CallFuture} caller keeps the interceptors'
   * continuation.
   */
  static <T> void relay(
      AdaptiveLimit.Permit permit, CompletableFuture<T> call, CompletableFuture<T> caller) {
    Continuations.relay(call, caller, failure -> release(permit, failure));
    caller.whenComplete(
        (result, failure) -> {
          if (failure != null) {
            call.completeExceptionally(failure);
          }
        });
  }

  /** Gives {@code permit} back ({@code null}: none) for a call that ended with {@code failure}. */
  static void release(AdaptiveLimit.Permit permit, Throwable failure) {
    if (permit == null) {
      return;
    }
    if (failure == null) {
      permit.answered();
    } else if (overloaded(failure)) {
      permit.overloaded();
    } else if (Failures.inTransport(failure) || failure instanceof PoolException) {
      permit.ignored();
    } else {
      permit.answered();
    }
  }

  private static boolean overloaded(Throwable failure) {
    if (Failures.notRun(failure)) {
      return true;
    }
    Throwable t = failure;
    for (int depth = 0; t != null && depth < 8; depth++, t = t.getCause()) {
      if (t instanceof CallDeadlineException
          || t instanceof CallTimeoutException
          || t instanceof PoolTimeoutException) {
        return true;
      }
    }
    return false;
  }
}
