package io.thriftnio.pool;

import static io.thriftnio.pool.CallState.deadline;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.thriftnio.core.internal.AdaptiveLimit;
import io.thriftnio.core.internal.client.CallerContext;
import io.thriftnio.core.util.internal.Continuations;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TMessage;

/**
 * The attempts of one {@link MultiplexedPool} exchange: under its deadline, resent or retried
 * elsewhere as the {@link CallPolicy} allows, hedged when idempotent, each attempt given a slot now
 * or in the pool's queue and sent by {@link ConnectionCalls}.
 */
final class CallAttempts {
  private final SharedChannels shared;
  private final ReplyCheck replies;
  private final ConnectionCalls calls;

  /** Hedge delay in nanoseconds for idempotent calls, 0 for none; see {@link #hedgeAfter}. */
  private volatile long hedge;

  /** Retries, resends and hedges; replaced by {@link #idempotent}. */
  private CallPolicy policy;

  /** The pool's adaptive limit on calls in flight. */
  private final PoolCallLimit limit;

  CallAttempts(
      SharedChannels shared, ReplyCheck replies, ConnectionCalls calls, PoolCallLimit limit) {
    this.limit = limit;
    this.shared = shared;
    this.replies = replies;
    this.calls = calls;
    this.policy = new CallPolicy(shared.name(), null, shared);
  }

  /** See {@link MultiplexedPool#idempotent}. */
  private volatile boolean inheritDeadline = true;

  void idempotent(Predicate<String> idempotent) {
    this.policy = new CallPolicy(shared.name(), idempotent, shared);
  }

  /** See {@link PoolBuilder#inheritDeadline(boolean)}. */
  void inheritDeadline(boolean inherit) {
    this.inheritDeadline = inherit;
  }

  /** See {@link MultiplexedPool#hedgeAfter}. */
  void hedgeAfter(Duration delay) {
    this.hedge = delay.toNanos();
  }

  /** {@code deadlineNanos}: the pool's call deadline or the call's own, 0 for none. */
  CompletableFuture<ByteBuffer> exchange(ByteBuffer request, Duration timeout, long deadlineNanos) {
    AdaptiveLimit.Permit permit;
    try {
      permit = limit.acquire();
    } catch (PoolException e) {
      return CompletableFuture.failedFuture(e);
    }
    // A CallFuture: a callback registered after the reply came runs inside the interceptors'
    // continuation, which the plain futures of the retries and the deadline do not keep.
    CompletableFuture<ByteBuffer> caller = new Continuations.CallFuture<>();
    PoolCallLimit.relay(permit, limited(request, timeout, deadlineNanos), caller);
    return caller;
  }

  /** {@link #exchange} once its place under the pool's adaptive limit is taken. */
  private CompletableFuture<ByteBuffer> limited(
      ByteBuffer request, Duration timeout, long deadlineNanos) {
    if (inheritDeadline) {
      try {
        deadlineNanos = InheritedDeadline.bound(deadlineNanos, shared.name(), shared::stats);
      } catch (CallDeadlineException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    CallerContext caller = calls.caller(); // for an attempt sent from another thread
    TMessage sent;
    try {
      sent = replies.header(request);
    } catch (TException | RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (deadlineNanos == 0) {
      return retrying(sent, request, timeout, null, caller);
    }
    // The deadline fails the caller's future; the exchange under it is sent with the time left as
    // its timeout, so that its slot is given up then too.
    CallState state = new CallState(Deadline.in(deadlineNanos));
    CompletableFuture<ByteBuffer> result = new Continuations.CallFuture<>();
    state.caller = result;
    ScheduledFuture<?> timer =
        Deadlines.schedule(
            () -> result.completeExceptionally(deadlinePassed(state)), deadlineNanos);
    CompletableFuture<ByteBuffer> exchange = retrying(sent, request, timeout, state, caller);
    exchange.whenComplete(
        (response, failure) -> {
          Continuations.keep(exchange, result);
          if (failure == null) {
            result.complete(response);
          } else if (state.explains(failure)) {
            result.completeExceptionally(deadlinePassed(state));
          } else {
            result.completeExceptionally(failure);
          }
        });
    result.whenComplete((response, failure) -> timer.cancel(false));
    return result;
  }

  private CallDeadlineException deadlinePassed(CallState state) {
    AsyncBorrows.Choice choice = state.choice;
    InetSocketAddress at = choice == null ? null : choice.sentTo;
    return state.deadline.exceeded(shared.name(), at, shared.stats(), null);
  }

  /**
   * Whether nothing more is to be sent for the call: the pool closed, or {@link CallState#over}.
   */
  private boolean finished(CallState state) {
    return shared.isClosed() || (state != null && state.over());
  }

  /**
   * An exchange, retried once elsewhere if its method is idempotent, and sent to another endpoint
   * when refused "not run" whatever its method; {@code state} may be null. A call that every
   * endpoint it could reach refused ends with the last refusal's reply, which the caller decodes as
   * the server sent it.
   */
  private CompletableFuture<ByteBuffer> retrying(
      TMessage sent, ByteBuffer request, Duration timeout, CallState state, CallerContext caller) {
    CompletableFuture<ByteBuffer> exchange;
    if (!policy.idempotent(sent.name)) {
      exchange =
          single(
              sent,
              request,
              request.position(),
              timeout,
              new AsyncBorrows.Choice(),
              state,
              caller,
              null,
              false);
    } else {
      exchange = new Attempts(sent, request, timeout, state, caller).start();
    }
    return Continuations.recover(
        exchange,
        failure ->
            Failures.unwrap(failure) instanceof NotRunReply refused
                ? CompletableFuture.completedFuture(refused.reply)
                : CompletableFuture.failedFuture(failure));
  }

  /**
   * One attempt of a call not declared idempotent, and what follows its failure: sent to an
   * endpoint that has not refused it after a "not run" refusal ({@code refusals}: those so far,
   * {@code null} for none); sent again once when its request was never written ({@link
   * CallPolicy#resends}; {@code resent}: it was already). The request is read from {@code from}.
   */
  private CompletableFuture<ByteBuffer> single(
      TMessage sent,
      ByteBuffer request,
      int from,
      Duration timeout,
      AsyncBorrows.Choice choice,
      CallState state,
      CallerContext caller,
      Refusals refusals,
      boolean resent) {
    ByteBuffer view = request;
    if (refusals != null || resent) {
      view = request.duplicate();
      view.position(from);
    }
    return Continuations.recover(
        attempt(sent, view, timeout, choice, state, caller, refusals),
        failure -> {
          if (refusals != null && choice.sentTo == null) {
            return CompletableFuture.failedFuture(unsent(sent, refusals, failure));
          }
          Refusals refused = elsewhere(sent, failure, choice, state, refusals);
          if (refused != null) {
            return single(
                sent,
                request,
                from,
                timeout,
                new AsyncBorrows.Choice(choice.sentTo),
                state,
                caller,
                refused,
                resent);
          }
          if (resent
              || Failures.notRun(failure)
              || !policy.resends(
                  sent.name, failure, choice.sentTo != null, deadline(state), finished(state))) {
            return CompletableFuture.failedFuture(failure);
          }
          return single(
              sent,
              request,
              from,
              timeout,
              new AsyncBorrows.Choice(choice.sentTo),
              state,
              caller,
              refusals,
              true);
        });
  }

  /**
   * What a call refused "not run" ends with when the borrow of its next attempt failed with {@code
   * failure}: the last refusal, noted with that failure.
   */
  private Throwable unsent(TMessage sent, Refusals refusals, Throwable failure) {
    policy.notSentElsewhere(
        refusals.last(),
        sent.name,
        refusals.endpoints(),
        "no other endpoint could take it: " + Failures.unwrap(failure).getMessage());
    return refusals.last();
  }

  /**
   * The refusals of a call whose attempt on {@code choice} ended with {@code failure}, when it was
   * a "not run" refusal and the call goes on to another endpoint ({@link
   * CallPolicy#sendsElsewhere}, one left that has not refused it); else {@code null}, the refusal
   * noted with why.
   */
  private Refusals elsewhere(
      TMessage sent,
      Throwable failure,
      AsyncBorrows.Choice choice,
      CallState state,
      Refusals refusals) {
    if (!Failures.notRun(failure) || choice.sentTo == null) {
      return null;
    }
    Refusals refused = Refusals.and(refusals, choice.sentTo, Failures.unwrap(failure));
    if (!policy.sendsElsewhere(failure, deadline(state), finished(state))) {
      policy.notSentElsewhere(failure, sent.name, refused.endpoints(), "the call is over");
      return null;
    }
    if (refused.cover(shared.endpoints())) {
      policy.notSentElsewhere(failure, sent.name, refused.endpoints(), "no other endpoint");
      return null;
    }
    return refused;
  }

  /**
   * The attempts of one idempotent call: the first, and at most one more, on another endpoint and
   * from the retry budget: a retry after a transport failure, or a hedge when no reply has come
   * {@link #hedge} after the first was sent. The first reply wins; the other attempt's reply, if
   * any, is dropped as it arrives (its slot frees then). The call fails when every attempt made has
   * failed, with the last failure.
   */
  private final class Attempts {
    private final TMessage sent;
    private final ByteBuffer request;
    private final Duration timeout;
    private final CallState state;
    private final CallerContext caller;
    private final AsyncBorrows.Choice first = new AsyncBorrows.Choice();
    private final CompletableFuture<ByteBuffer> result = new Continuations.CallFuture<>();
    private final AtomicBoolean extraTaken = new AtomicBoolean();
    private final AtomicInteger outstanding = new AtomicInteger(1);

    // Guards the refusals: the first attempt and the extra one may end at once on two threads. Only
    // the pool's own bookkeeping runs under it (the refusals, the policy's note on the exception).
    private final Object lock = new Object();

    /** The "not run" refusals so far, or null. */
    @GuardedBy("lock")
    private Refusals refusals;

    Attempts(
        TMessage sent,
        ByteBuffer request,
        Duration timeout,
        CallState state,
        CallerContext caller) {
      this.sent = sent;
      this.request = request;
      this.timeout = timeout;
      this.state = state;
      this.caller = caller;
    }

    CompletableFuture<ByteBuffer> start() {
      run(first, null);
      long hedgeNanos = hedge;
      if (hedgeNanos > 0) {
        ScheduledFuture<?> timer = Deadlines.schedule(this::hedge, hedgeNanos);
        result.whenComplete((response, failure) -> timer.cancel(false));
      }
      return result;
    }

    /**
     * One attempt; the channel reads the request from its position, so each gets its own view.
     * {@code refused}: the endpoints it must not go to, {@code null} for none.
     */
    private void run(AsyncBorrows.Choice choice, Refusals refused) {
      CompletableFuture<ByteBuffer> attempt =
          attempt(sent, request.duplicate(), timeout, choice, state, caller, refused);
      attempt.whenComplete(
          (response, failure) ->
              ended(
                  attempt,
                  choice,
                  response,
                  // A borrow that failed after a refusal: the caller hears the refusal.
                  failure != null && refused != null && choice.sentTo == null
                      ? unsent(sent, refused, failure)
                      : failure));
    }

    private boolean over() {
      return result.isDone() || finished(state);
    }

    /** No reply yet: the same call to another endpoint, if the first was sent and budget allows. */
    private void hedge() {
      if (over() || first.sentTo == null || !extraTaken.compareAndSet(false, true)) {
        return;
      }
      if (!policy.hedges(deadline(state), over())) {
        return;
      }
      outstanding.incrementAndGet();
      run(new AsyncBorrows.Choice(first.sentTo), refusals());
    }

    private Refusals refusals() {
      synchronized (lock) {
        return refusals;
      }
    }

    /** {@code attempt}, made on {@code choice}, ended with {@code response} or {@code failure}. */
    private void ended(
        CompletableFuture<ByteBuffer> attempt,
        AsyncBorrows.Choice choice,
        ByteBuffer response,
        Throwable failure) {
      if (failure == null) {
        if (!result.isDone()) {
          Continuations.keep(attempt, result);
        }
        result.complete(response); // the first reply wins; a later one is dropped
        return;
      }
      if (Failures.notRun(failure) && choice.sentTo != null && !over()) {
        Refusals refused;
        synchronized (lock) {
          refused = elsewhere(sent, failure, choice, state, refusals);
          if (refused != null) {
            refusals = refused;
          }
        }
        if (refused != null) {
          // Not run: to an endpoint that has not refused it, outside the budget; replaces this.
          run(new AsyncBorrows.Choice(choice.sentTo), refused);
          return;
        }
      }
      if (first.sentTo != null // else a borrow failure: the borrow retried connects itself
          && Failures.inTransport(failure)
          && !over()
          && extraTaken.compareAndSet(false, true)
          && policy.retries(sent.name, failure, deadline(state), over())) {
        run(new AsyncBorrows.Choice(first.sentTo), refusals()); // replaces this attempt
        return;
      }
      if (outstanding.decrementAndGet() == 0) {
        Continuations.keep(attempt, result);
        result.completeExceptionally(failure);
      }
    }
  }

  /**
   * One attempt of an exchange: a slot now, or in the queue; {@code choice} learns where. A call
   * refused "not run" ({@code refused} not null) is never sent to an endpoint that refused it: if
   * only such an endpoint has a slot for it, the slot is given back and the attempt fails with the
   * last refusal.
   */
  private CompletableFuture<ByteBuffer> attempt(
      TMessage sent,
      ByteBuffer request,
      Duration timeout,
      AsyncBorrows.Choice choice,
      CallState state,
      CallerContext caller,
      Refusals refused) {
    if (state != null) {
      state.choice = choice;
    }
    Conn conn;
    try {
      conn = shared.now(choice);
    } catch (TException | RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (conn != null) {
      if (refusedHere(conn, refused)) {
        return CompletableFuture.failedFuture(onlyRefusers(conn));
      }
      choice.sentTo = conn.endpoint;
      return CallerContext.sendIn(
          caller, () -> calls.exchange(sent, conn, request, timeout, state));
    }
    CompletableFuture<ByteBuffer> result = new Continuations.CallFuture<>();
    shared
        .later(choice)
        .whenComplete(
            (c, waitFailed) -> {
              if (waitFailed != null) {
                result.completeExceptionally(waitFailed);
              } else {
                if (state != null && state.over()) {
                  shared.giveBack(c); // its deadline passed while it waited: never sent
                  result.cancel(false);
                  return;
                }
                if (refusedHere(c, refused)) {
                  result.completeExceptionally(onlyRefusers(c));
                  return;
                }
                try {
                  choice.sentTo = c.endpoint;
                  ConnectionCalls.relay(
                      CallerContext.sendIn(
                          caller, () -> calls.exchange(sent, c, request, timeout, state)),
                      result);
                } catch (RuntimeException | Error e) {
                  // Thrown on the thread that served the wait (an IO thread): the caller hears it.
                  result.completeExceptionally(e);
                }
              }
            });
    return result;
  }

  /**
   * Whether {@code conn} goes to an endpoint that refused the call: its slot is then given back
   * unused, and the attempt fails as a borrow that found nothing ({@link #onlyRefusers}), which the
   * caller hears as the last refusal.
   */
  private boolean refusedHere(Conn conn, Refusals refused) {
    if (refused == null || !refused.refused(conn.endpoint)) {
      return false;
    }
    shared.giveBack(conn);
    return true;
  }

  private PoolException onlyRefusers(Conn conn) {
    return new PoolException(
        shared.name()
            + ": only "
            + Names.endpoint(conn.endpoint)
            + ", which refused the call, had a slot for it ("
            + shared.gauges()
            + ")",
        null);
  }
}
