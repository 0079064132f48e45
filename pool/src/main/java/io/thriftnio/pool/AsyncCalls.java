package io.thriftnio.pool;

import io.thriftnio.core.internal.AdaptiveLimit;
import io.thriftnio.core.util.internal.HeaderSlot;
import io.thriftnio.pool.EndpointPool.Borrowed;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.thrift.TException;
import org.apache.thrift.async.AsyncMethodCallback;
import org.apache.thrift.async.TAsyncClient;
import org.apache.thrift.transport.TTransportException;

/**
 * The async pool's calls over stock {@code AsyncClient}s: one call per borrowed client, taken now
 * or from the bounded queue ({@link AsyncBorrows}), completed by the client's callback, under
 * {@link CallPolicy} and a {@link Deadline} that fails the caller's future when it passes and cuts
 * the client's own timeout to end the call just after it. Futures complete on the executor.
 *
 * @param <A> the generated async client type
 */
final class AsyncCalls<A extends TAsyncClient> implements AutoCloseable {

  /** Starts one call on a borrowed client, passing {@code callback} on. */
  @FunctionalInterface
  public interface Start<A, R> {
    void start(A client, AsyncMethodCallback<R> callback) throws TException;
  }

  /** How long after a call's deadline its client's own timeout ends it. */
  private static final long DEADLINE_SLACK_NANOS = 100_000_000;

  private final String name;
  private final Executor executor;
  private final EndpointPool<AsyncConnection<A>> pool;
  private final CallPolicy policy;
  private final PoolCallLimit limit;
  private final AsyncBorrows<Borrowed<AsyncConnection<A>>> borrows;
  private final long callNanos; // the clients' own call timeout, 0 for none
  private final Set<InFlight<?>> inFlight = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Supplier<PoolStats> stats;
  private volatile boolean inheritDeadline = true;

  /**
   * @param callMillis the clients' own call timeout in milliseconds, 0 for none
   * @param idempotent the methods declared idempotent; {@code null} for none
   * @param stats the pool's state as its users see it, for messages
   */
  public AsyncCalls(
      String name,
      EndpointPool<AsyncConnection<A>> pool,
      PoolConfig config,
      PoolMetrics metrics,
      Executor executor,
      long callMillis,
      Predicate<String> idempotent,
      Supplier<PoolStats> stats) {
    this.name = name;
    this.stats = stats;
    this.pool = pool;
    this.executor = executor;
    this.callNanos = callMillis * 1_000_000;
    this.policy = new CallPolicy(name, idempotent, pool);
    this.limit = PoolCallLimit.of(name, config);
    this.borrows = new AsyncBorrows<>(name, config, metrics, new Waiters());
    pool.onFree(borrows::dispatch);
  }

  /** {@code method} if it may be retried ({@link CallPolicy#idempotent}), else {@code null}. */
  public String retryable(String method) {
    return policy.idempotent(method) ? method : null;
  }

  /** See {@link PoolBuilder#inheritDeadline(boolean)}; default on. */
  public void inheritDeadline(boolean inherit) {
    this.inheritDeadline = inherit;
  }

  /**
   * Starts a call that completes {@code caller} on the executor, within {@code deadlineNanos} (0:
   * none); {@code method}: as {@link #retryable} says, {@code null} for a call never retried.
   */
  public <R> void call(
      Start<? super A, R> call, CompletableFuture<R> caller, String method, long deadlineNanos) {
    AdaptiveLimit.Permit permit;
    try {
      permit = limit.acquire();
    } catch (PoolException e) {
      completeOnExecutor(() -> caller.completeExceptionally(e));
      return;
    }
    CompletableFuture<R> future = permit == null ? caller : new CompletableFuture<>();
    if (permit != null) {
      PoolCallLimit.relay(permit, future, caller);
    }
    if (inheritDeadline) {
      try {
        deadlineNanos = InheritedDeadline.bound(deadlineNanos, name, this::stats);
      } catch (CallDeadlineException e) {
        completeOnExecutor(() -> future.completeExceptionally(e));
        return;
      }
    }
    // The HeaderScope current here, for a call started on another thread (after a wait, a retry).
    HeaderSlot headers = HeaderSlot.current();
    borrowAndStart(call, future, method, null, armDeadline(future, deadlineNanos), headers, null);
  }

  /** Calls waiting in the queue for a connection. */
  public int waiting() {
    return borrows.waiting();
  }

  private PoolStats stats() {
    return stats.get();
  }

  /**
   * Fails waiting calls and calls in flight with a {@link PoolException} saying the pool is closed
   * and closes the connections. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    borrows.close();
    pool.close();
    for (InFlight<?> f : inFlight) {
      f.settle(null, pool.closedException());
    }
  }

  /**
   * {@code avoid}: where the call failed, for its retry; {@code refusals}: the endpoints that
   * refused it "not run", {@code null} for none.
   */
  private <R> void borrowAndStart(
      Start<? super A, R> call,
      CompletableFuture<R> future,
      String method,
      InetSocketAddress avoid,
      CallClock clock,
      HeaderSlot headers,
      Refusals refusals) {
    Borrowed<AsyncConnection<A>> b;
    AsyncBorrows.Choice choice = new AsyncBorrows.Choice(avoid);
    try {
      b = borrows.now(choice);
    } catch (TException | RuntimeException e) {
      completeOnExecutor(() -> future.completeExceptionally(borrowFailed(e, refusals, method)));
      return;
    }
    if (b != null) {
      start(call, future, b, method, clock, headers, refusals);
      return;
    }
    borrows
        .later(choice)
        .whenComplete(
            (lent, waitFailed) -> {
              if (waitFailed != null) {
                completeOnExecutor(
                    () -> future.completeExceptionally(borrowFailed(waitFailed, refusals, method)));
              } else {
                try {
                  start(call, future, lent, method, clock, headers, refusals);
                } catch (RuntimeException | Error e) {
                  // Thrown on the thread that served the wait: the caller hears it.
                  completeOnExecutor(() -> future.completeExceptionally(e));
                }
              }
            });
  }

  /**
   * What the caller hears when the borrow of its call failed with {@code e}: {@code e}, or for a
   * call sent on after a "not run" refusal, that refusal, noted with {@code e}.
   */
  private Throwable borrowFailed(Throwable e, Refusals refusals, String method) {
    if (refusals == null) {
      return e;
    }
    policy.notSentElsewhere(
        refusals.last(),
        method,
        refusals.endpoints(),
        "no other endpoint could take it: " + e.getMessage());
    return refusals.last();
  }

  private <R> void start(
      Start<? super A, R> call,
      CompletableFuture<R> future,
      Borrowed<AsyncConnection<A>> b,
      String method,
      CallClock clock,
      HeaderSlot headers,
      Refusals refusals) {
    if (refusals != null && refusals.refused(b.endpoint)) {
      // Only an endpoint that refused the call could take it: it goes no further.
      pool.giveBack(b);
      policy.notSentElsewhere(
          refusals.last(), method, refusals.endpoints(), "no other endpoint could take it");
      completeOnExecutor(() -> future.completeExceptionally(refusals.last()));
      return;
    }
    long sentNanos = callNanos; // what the client waits, sent as client_timeout on THeader
    if (clock != null) {
      if (future.isDone() || clock.deadline.passed()) {
        pool.giveBack(b); // the deadline passed while the call waited: it never starts
        return;
      }
      clock.sentTo = b.endpoint;
      // The client's own timeout ends the call just after the deadline (frees and destroys the
      // client); the slack lets the pool's timer, which knows where the call was, speak first
      // whatever the selector thread's timeout granularity.
      long nanos = clock.deadline.attemptNanos(callNanos, DEADLINE_SLACK_NANOS);
      b.connection.client.setTimeout((nanos + 999_999) / 1_000_000);
      sentNanos = Math.min(nanos, Math.max(1, clock.deadline.left()));
    }
    b.connection.beginCall(headers, (sentNanos + 999_999) / 1_000_000);
    InFlight<R> f = new InFlight<>(b, future, call, method, clock, headers, refusals);
    inFlight.add(f);
    if (closed.get()) {
      f.settle(null, pool.closedException());
      return;
    }
    try {
      call.start(b.connection.client, f);
    } catch (Throwable t) {
      f.settle(null, t);
    }
  }

  /** When a call with a deadline must end, and where it went; {@code null} without a deadline. */
  private static final class CallClock {
    final Deadline deadline;
    volatile InetSocketAddress sentTo; // null while the call waits for a connection

    CallClock(Deadline deadline) {
      this.deadline = deadline;
    }
  }

  /**
   * Fails {@code future} {@code deadlineNanos} from now (0 for none), saying whether the call
   * waited or was in flight; the timer goes when the future completes first.
   */
  private CallClock armDeadline(CompletableFuture<?> future, long deadlineNanos) {
    if (deadlineNanos == 0) {
      return null;
    }
    CallClock clock = new CallClock(Deadline.in(deadlineNanos));
    ScheduledFuture<?> timer =
        Deadlines.schedule(
            () -> {
              CallDeadlineException e = clock.deadline.exceeded(name, clock.sentTo, stats(), null);
              completeOnExecutor(() -> future.completeExceptionally(e));
            },
            deadlineNanos);
    future.whenComplete((result, failure) -> timer.cancel(false));
    return clock;
  }

  private void completeOnExecutor(Runnable task) {
    try {
      executor.execute(task);
    } catch (RejectedExecutionException e) {
      // The executor is shut down: completing here is late but better than never.
      task.run();
    }
  }

  /** The async queue's view of the pool. */
  private final class Waiters implements AsyncBorrows.Source<Borrowed<AsyncConnection<A>>> {
    @Override
    public Borrowed<AsyncConnection<A>> tryNow(
        InetSocketAddress preferred, InetSocketAddress avoid, Consumer<InetSocketAddress> chosen)
        throws TException {
      return pool.tryBorrowNow(preferred, avoid, chosen);
    }

    @Override
    public Borrowed<AsyncConnection<A>> borrow(InetSocketAddress preferred) throws TException {
      return pool.borrow(preferred);
    }

    @Override
    public void giveBack(Borrowed<AsyncConnection<A>> borrowed) {
      pool.giveBack(borrowed);
    }

    @Override
    public PoolStats stats() {
      return AsyncCalls.this.stats();
    }

    @Override
    public Throwable lastDownFailure() {
      return pool.lastDownFailure();
    }

    @Override
    public InetSocketAddress soleEndpoint() {
      List<InetSocketAddress> all = pool.endpoints();
      return all.size() == 1 ? all.get(0) : null;
    }

    @Override
    public PoolException closedException() {
      return pool.closedException();
    }

    @Override
    public void timedOut() {
      pool.countTimeout();
    }

    @Override
    public void callStarted() {
      pool.callStarted();
    }
  }

  /**
   * One call on one borrowed client. The first outcome wins: the callback (on the selector thread)
   * or a failure to start. Settling hands off to the executor at once, so the selector thread only
   * enqueues.
   */
  private final class InFlight<R> implements AsyncMethodCallback<R> {
    private final Borrowed<AsyncConnection<A>> borrowed;
    private final CompletableFuture<R> future;
    private final Start<? super A, R> call;
    private final String retryable; // the idempotent method not retried yet, or null
    private final CallClock clock; // null without a deadline
    private final HeaderSlot headers; // the caller's HeaderScope, or null
    private final Refusals refusals; // the "not run" refusals before this attempt, or null
    private final AtomicBoolean settled = new AtomicBoolean();

    InFlight(
        Borrowed<AsyncConnection<A>> borrowed,
        CompletableFuture<R> future,
        Start<? super A, R> call,
        String retryable,
        CallClock clock,
        HeaderSlot headers,
        Refusals refusals) {
      this.borrowed = borrowed;
      this.future = future;
      this.call = call;
      this.retryable = retryable;
      this.clock = clock;
      this.headers = headers;
      this.refusals = refusals;
    }

    /**
     * Sends a call its server refused "not run" to an endpoint that has not refused it, if {@link
     * CallPolicy#sendsElsewhere} allows and one is left; else notes why on the refusal.
     */
    private boolean sentElsewhere(Throwable failure) {
      if (!Failures.notRun(failure)) {
        return false;
      }
      Refusals refused = Refusals.and(refusals, borrowed.endpoint, Failures.unwrap(failure));
      if (!policy.sendsElsewhere(failure, clock == null ? null : clock.deadline, closed.get())) {
        policy.notSentElsewhere(failure, retryable, refused.endpoints(), "the call is over");
        return false;
      }
      if (refused.cover(pool.endpoints())) {
        policy.notSentElsewhere(failure, retryable, refused.endpoints(), "no other endpoint");
        return false;
      }
      borrowAndStart(call, future, retryable, borrowed.endpoint, clock, headers, refused);
      return true;
    }

    /** {@code failure}, or the deadline's exception if it passed: the client's timeout was ours. */
    private Throwable explain(Throwable failure) {
      if (!byDeadline()) {
        return failure;
      }
      return clock.deadline.exceeded(name, borrowed.endpoint, stats(), failure);
    }

    /** Whether the call's deadline has passed: then the client's timeout was the deadline's. */
    private boolean byDeadline() {
      return clock != null && clock.deadline.passed();
    }

    /** Retries the call elsewhere, once, if {@link CallPolicy#retries} allows. */
    private boolean retried(Throwable failure) {
      if (!policy.retries(
          retryable, failure, clock == null ? null : clock.deadline, closed.get())) {
        return false;
      }
      borrowAndStart(call, future, null, borrowed.endpoint, clock, headers, refusals);
      return true;
    }

    @Override
    public void onComplete(R response) {
      settle(response, null);
    }

    @Override
    public void onError(Exception exception) {
      settle(null, borrowed.connection.explain(exception));
    }

    void settle(R response, Throwable failure) {
      if (!settled.compareAndSet(false, true)) {
        return;
      }
      inFlight.remove(this);
      // Before the caller hears: a reply read to its end has ended the call already.
      borrowed.connection.settleCall(failure);
      if (CallPolicy.aboutEndpoint(failure, closed.get(), byDeadline())) {
        pool.callEnded(borrowed.endpoint, failure);
      }
      completeOnExecutor(
          () -> {
            // Back in the pool (or destroyed) before the caller hears, so its next call can reuse.
            if (failure == null && !borrowed.connection.client.hasError()) {
              pool.release(borrowed);
              future.complete(response);
            } else if (Failures.keepsConnection(failure)
                && !Failures.notRun(failure) // goes elsewhere (below), off a draining server
                && borrowed.connection.renew()) {
              // A whole reply (a declared exception, an application exception): the stock client
              // calls it an error, but the connection is in step; a fresh client takes it over.
              pool.release(borrowed);
              future.completeExceptionally(explain(failure));
            } else {
              pool.invalidate(
                  borrowed, failure != null ? failure : borrowed.connection.client.getError());
              if (failure != null && (sentElsewhere(failure) || retried(failure))) {
                return;
              }
              future.completeExceptionally(
                  failure != null
                      ? explain(failure)
                      : new TTransportException(
                          "client reported an error after success",
                          borrowed.connection.client.getError()));
            }
          });
    }
  }
}
