package io.thriftnio.pool;

import io.thriftnio.core.util.internal.CallTimeoutException;
import io.thriftnio.core.util.internal.ChannelClosedException;
import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.function.Predicate;

/**
 * What the three pools decide alike about a call's attempts, whatever carries them (a blocking
 * client, a stock async client, a pipelined channel): whether a failed attempt goes again, whether
 * a slow one is hedged, and whether its outcome says anything about its endpoint. The pools keep
 * only how an attempt runs on their kind of connection; {@link Deadline} bounds every attempt.
 *
 * <p>Every extra attempt is taken from the pool's retry budget, and goes to another endpoint when
 * one can take it. A call makes at most one extra attempt; the pools enforce that count.
 */
final class CallPolicy {

  /** The pool's retry budget, as the policy spends it. */
  public interface Budget {
    /** Takes one extra attempt from the budget; {@code false} when it is spent (and counted). */
    boolean tryRetry();

    /** What a call's error says when its retry was refused: the budget and the pool state. */
    String retryRefused();
  }

  private final String pool;
  private final Predicate<String> idempotent; // null when no method is
  private final Budget budget;

  /**
   * @param pool the pool's name, for messages
   * @param idempotent the methods declared idempotent; {@code null} for none
   * @param budget where extra attempts are paid from
   */
  public CallPolicy(String pool, Predicate<String> idempotent, Budget budget) {
    this.pool = pool;
    this.idempotent = idempotent;
    this.budget = budget;
  }

  /** Whether {@code method} was declared idempotent; {@code null} (a lambda's call): no. */
  public boolean idempotent(String method) {
    return method != null && idempotent != null && idempotent.test(method);
  }

  /**
   * Whether an attempt of {@code method} that failed with {@code failure} goes again: the method is
   * idempotent (the request may have reached a handler), the failure is in transport ({@link
   * Failures#inTransport}: an answer or the pool's own refusal is final), the call is not {@code
   * over} (its caller heard, or the pool closed), its {@code deadline} ({@code null}: none) has
   * time left, and the budget pays. A refusal by the budget is noted on the failure the caller
   * hears.
   */
  public boolean retries(String method, Throwable failure, Deadline deadline, boolean over) {
    if (!idempotent(method)
        || over
        || !Failures.inTransport(failure)
        || (deadline != null && deadline.passed())) {
      return false;
    }
    return paid(failure, "idempotent " + method + " not retried: ");
  }

  /**
   * Whether an attempt of any method goes again because its request was never written: the
   * connection it was given had closed before ({@link ChannelClosedException}), so no handler saw
   * it. {@code sent}: whether a connection was given at all (else a borrow failed, and a borrow
   * retries connects itself). Otherwise as {@link #retries}.
   */
  public boolean resends(
      String method, Throwable failure, boolean sent, Deadline deadline, boolean over) {
    if (!(Failures.unwrap(failure) instanceof ChannelClosedException)
        || !sent
        || over
        || (deadline != null && deadline.passed())) {
      return false;
    }
    return paid(failure, method + " not sent, and not retried: ");
  }

  /**
   * Whether an attempt that a server refused without running it ({@link Failures#notRun}) goes to
   * another endpoint: whatever its method (no handler ran), outside the retry budget, while the
   * call is not {@code over} and its {@code deadline} ({@code null}: none) has time left. The pool
   * sends it only to an endpoint that has not refused it yet, so a call makes at most one attempt
   * per endpoint; when none is left the caller hears the last refusal ({@link #notSentElsewhere}).
   */
  public boolean sendsElsewhere(Throwable failure, Deadline deadline, boolean over) {
    return Failures.notRun(failure) && !over && (deadline == null || !deadline.passed());
  }

  /**
   * Notes on {@code refusal}, which the caller hears, why the call went no further: {@code why} (no
   * other endpoint, the deadline), with the endpoints that refused it.
   */
  public void notSentElsewhere(
      Throwable refusal, String method, Collection<InetSocketAddress> refusedBy, String why) {
    StringBuilder endpoints = new StringBuilder();
    for (InetSocketAddress a : refusedBy) {
      endpoints.append(endpoints.length() == 0 ? "" : ", ").append(Names.endpoint(a));
    }
    Failures.unwrap(refusal)
        .addSuppressed(
            new PoolException(
                pool
                    + ": "
                    + (method == null ? "call" : method)
                    + " refused not run by "
                    + endpoints
                    + "; not sent elsewhere: "
                    + why,
                null));
  }

  /**
   * Whether an idempotent call with no reply yet is sent to a second endpoint now: not when it is
   * {@code over} or its deadline passed, nor when the budget is spent (the first attempt then
   * carries on alone).
   */
  public boolean hedges(Deadline deadline, boolean over) {
    return !over && (deadline == null || !deadline.passed()) && budget.tryRetry();
  }

  private boolean paid(Throwable failure, String refused) {
    if (budget.tryRetry()) {
      return true;
    }
    Failures.unwrap(failure)
        .addSuppressed(new PoolException(pool + ": " + refused + budget.retryRefused(), null));
    return false;
  }

  /**
   * Whether an attempt that ended with {@code failure} ({@code null}: a reply) tells outlier
   * ejection something about its endpoint. Not when the pool is {@code closed} (its close failed
   * the call), nor when the caller's deadline ended the attempt ({@code byDeadline}: the caller's
   * time was up, whatever the endpoint did), nor for a pipelined call that timed out only behind
   * another timed-out call on its connection (replies come in order: it says nothing new).
   */
  public static boolean aboutEndpoint(Throwable failure, boolean closed, boolean byDeadline) {
    if (closed || (failure != null && byDeadline)) {
      return false;
    }
    return !(Failures.unwrap(failure) instanceof CallTimeoutException timeout
        && timeout.behindTimedOutCall());
  }
}
