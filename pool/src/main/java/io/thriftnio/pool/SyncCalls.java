package io.thriftnio.pool;

import io.thriftnio.core.internal.AdaptiveLimit;
import io.thriftnio.core.internal.client.HeaderTransport;
import io.thriftnio.pool.EndpointPool.Borrowed;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.thrift.TException;
import org.apache.thrift.TServiceClient;
import org.apache.thrift.transport.TTransportException;

/**
 * The sync pool's calls: one blocking attempt per borrowed connection, under {@link CallPolicy} and
 * a {@link Deadline} that closes the connection under a call when it passes.
 *
 * @param <C> the generated client type
 */
final class SyncCalls<C extends TServiceClient> {

  /** What a call does with a borrowed client. */
  @FunctionalInterface
  public interface Work<C, R> {
    R on(C client) throws TException;
  }

  private final String name;
  private final EndpointPool<SyncConnection<C>> pool;
  private final CallPolicy policy;
  private final PoolCallLimit limit;
  private volatile boolean inheritDeadline = true;

  /**
   * @param name the pool's name, for messages
   * @param pool the connections
   * @param idempotent the methods declared idempotent; {@code null} for none
   */
  public SyncCalls(
      String name, EndpointPool<SyncConnection<C>> pool, Predicate<String> idempotent) {
    this.name = name;
    this.pool = pool;
    this.policy = new CallPolicy(name, idempotent, pool);
    this.limit = PoolCallLimit.of(name, pool.config());
  }

  /** See {@link PoolBuilder#inheritDeadline(boolean)}; default on. */
  public void inheritDeadline(boolean inherit) {
    this.inheritDeadline = inherit;
  }

  /**
   * A call of {@code method} ({@code null}: unknown, a lambda's) within {@code deadlineNanos} (0:
   * none), retried once on another endpoint when {@link CallPolicy#retries} allows.
   */
  public <R> R call(String method, Work<? super C, R> work, long deadlineNanos) throws TException {
    AdaptiveLimit.Permit permit = limit.acquire();
    if (permit == null) {
      return limited(method, work, deadlineNanos);
    }
    Throwable failure = null;
    try {
      return limited(method, work, deadlineNanos);
    } catch (TException | RuntimeException | Error t) {
      failure = t;
      throw t;
    } finally {
      PoolCallLimit.release(permit, failure);
    }
  }

  /** {@link #call(String, Work, long)} once its place under the pool's adaptive limit is taken. */
  private <R> R limited(String method, Work<? super C, R> work, long deadlineNanos)
      throws TException {
    if (inheritDeadline) {
      deadlineNanos = InheritedDeadline.bound(deadlineNanos, name, pool::stats);
    }
    Deadline deadline = Deadline.in(deadlineNanos);
    if (deadline == null) {
      return call(method, work, null, pool.borrow());
    }
    Borrowed<SyncConnection<C>> b;
    try {
      b = pool.borrow(Duration.ofNanos(deadlineNanos));
    } catch (PoolTimeoutException e) {
      if (!deadline.passed()) {
        throw e; // the borrow timeout, shorter than the deadline
      }
      throw deadline.exceeded(name, null, pool.stats(), e);
    }
    if (deadline.passed()) {
      pool.giveBack(b); // a connect took the time that was left
      throw deadline.exceeded(name, null, pool.stats(), null);
    }
    return call(method, work, deadline, b);
  }

  /**
   * {@code deadline}: {@code null} for none. An attempt of a known {@code method} refused "not run"
   * goes to an endpoint that has not refused the call ({@link CallPolicy#sendsElsewhere}); one that
   * failed in transport is retried once as {@link CallPolicy#retries} allows.
   */
  private <R> R call(
      String method, Work<? super C, R> work, Deadline deadline, Borrowed<SyncConnection<C>> b)
      throws TException {
    List<InetSocketAddress> refusedBy = null;
    boolean retried = false;
    while (true) {
      try {
        return attempt(b, work, deadline);
      } catch (TException | RuntimeException | Error t) {
        // A blocking call is over only when it returns: no caller has heard, whatever the pool
        // does.
        // Only a call of a known method (iface): a lambda may have made other calls before the
        // refused one, which would run twice.
        if (method != null && Failures.notRun(t)) {
          if (refusedBy == null) {
            refusedBy = new ArrayList<>(2);
          }
          refusedBy.add(b.endpoint);
          b = elsewhere(method, t, deadline, refusedBy);
          continue;
        }
        if (retried || !policy.retries(method, t, deadline, false)) {
          throw t;
        }
        retried = true;
        b = retryBorrow(b.endpoint, deadline);
      }
    }
  }

  /** The borrow of a retry after a transport failure on {@code failedOn}. */
  private Borrowed<SyncConnection<C>> retryBorrow(InetSocketAddress failedOn, Deadline deadline)
      throws TException {
    if (deadline == null) {
      return pool.borrowForRetry(failedOn, pool.config().borrowTimeout());
    }
    try {
      return pool.borrowForRetry(failedOn, Duration.ofNanos(Math.max(1, deadline.left())));
    } catch (PoolTimeoutException e) {
      throw deadline.exceeded(name, null, pool.stats(), e);
    }
  }

  /**
   * A connection to an endpoint not in {@code refusedBy} for a call they refused "not run"; when
   * none can take it within the deadline, the caller hears {@code refusal}, noted with why.
   */
  private Borrowed<SyncConnection<C>> elsewhere(
      String method, Throwable refusal, Deadline deadline, List<InetSocketAddress> refusedBy)
      throws TException {
    if (!policy.sendsElsewhere(refusal, deadline, pool.isClosed())) {
      policy.notSentElsewhere(refusal, method, refusedBy, "the call's deadline has passed");
      throw rethrow(refusal);
    }
    Duration wait =
        deadline == null
            ? pool.config().borrowTimeout()
            : Duration.ofNanos(Math.max(1, deadline.left()));
    try {
      return pool.borrowElsewhere(refusedBy, wait);
    } catch (TException | RuntimeException e) {
      policy.notSentElsewhere(
          refusal, method, refusedBy, "no other endpoint could take it: " + e.getMessage());
      throw rethrow(refusal);
    }
  }

  /** {@code t}, a refusal a call threw, thrown again as what it is. */
  private static TException rethrow(Throwable t) {
    if (t instanceof RuntimeException r) {
      throw r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return (TException) t;
  }

  /**
   * One attempt on a borrowed connection. With a deadline, the connection is closed under the call
   * when it passes: the blocked read fails at once, and the caller hears {@link
   * CallDeadlineException} (caused by that failure) instead.
   */
  private <R> R attempt(Borrowed<SyncConnection<C>> b, Work<? super C, R> work, Deadline deadline)
      throws TException {
    Throwable failure = null;
    AtomicBoolean cut = new AtomicBoolean();
    ScheduledFuture<?> watchdog = null;
    if (deadline != null) {
      watchdog =
          Deadlines.schedule(
              () -> {
                cut.set(true);
                b.connection.close();
              },
              deadline.left());
    }
    if (deadline != null && b.connection.transport instanceof HeaderTransport) {
      // Sent as client_timeout when the deadline comes before the transport's read timeout.
      ((HeaderTransport) b.connection.transport).nextDeadline(System.nanoTime() + deadline.left());
    }
    try {
      return work.on(b.connection.client);
    } catch (Throwable t) {
      failure = b.connection.explain(t);
      if (cut.get()) {
        failure = deadline.exceeded(name, b.endpoint, pool.stats(), t);
        throw (CallDeadlineException) failure;
      }
      throw rethrow(failure);
    } finally {
      if (watchdog != null) {
        watchdog.cancel(false);
      }
      settle(b, failure, cut.get());
    }
  }

  /**
   * One call of a lease on {@code b}, under the pool's rules for a connection: {@code spoiled}
   * hears a failure after which the stream may hold half a reply (the lease then destroys the
   * connection when it closes); the caller hears the failure unchanged.
   */
  public <R> R onLease(
      Borrowed<SyncConnection<C>> b, Work<? super C, R> work, Consumer<Throwable> spoiled)
      throws TException {
    R result;
    try {
      result = work.on(b.connection.client);
    } catch (Throwable thrown) {
      Throwable t = b.connection.explain(thrown);
      boolean refused = b.connection.settleCall(t); // an interceptor's refusal sent nothing
      if (!refused && !Failures.keepsConnection(t)) {
        spoiled.accept(t);
      }
      throw rethrow(t);
    }
    b.connection.settleCall(null);
    return result;
  }

  /**
   * Returns the connection after a call that ended with {@code failure} ({@code null}: a reply) if
   * it is fit for the next call, else destroys it; {@code byDeadline}: the call's deadline closed
   * the connection under it.
   */
  public void settle(Borrowed<SyncConnection<C>> b, Throwable failure, boolean byDeadline) {
    boolean refused = b.connection.settleCall(failure); // an interceptor's refusal sent nothing
    if (!refused && CallPolicy.aboutEndpoint(failure, pool.isClosed(), byDeadline)) {
      pool.callEnded(b.endpoint, failure);
    }
    boolean keep = failure == null || refused || Failures.keepsConnection(failure);
    if (!refused && Failures.draining(failure)) {
      pool.retire(b); // its server drains and closes it once quiet: no new call on it
    } else if (keep && b.connection.isClean()) {
      pool.release(b);
    } else {
      pool.invalidate(
          b,
          failure != null
              ? failure
              : new TTransportException("connection closed or holding unread bytes after a call"));
    }
  }
}
