package io.thriftnio.pool.internal;

import io.thriftnio.core.CallTimeoutException;
import io.thriftnio.core.ClientCallOutcome;
import io.thriftnio.core.FrameSizeException;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.TooManyPendingCallsException;
import io.thriftnio.core.internal.client.ClientInterception;
import io.thriftnio.core.internal.client.ClientInterception.Call;
import io.thriftnio.pool.CallDeadlineException;
import io.thriftnio.pool.EndpointSource;
import io.thriftnio.pool.PoolConfig;
import io.thriftnio.pool.PoolMetrics;
import io.thriftnio.pool.PoolStats;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TTransportException;

/**
 * Shared connections, each carrying up to {@code maxInFlight} calls, per endpoint, presented as one
 * {@link ThriftChannel}; {@link SharedChannels} keeps the books.
 *
 * <p>Not built on commons-pool2: pool2 lends an object to one borrower at a time, while a
 * pipelining {@link ThriftChannel} is shared by many calls at once. Limits, endpoint choice,
 * back-off and errors follow the same {@link PoolConfig} as the exclusive pools.
 *
 * <p>The pool presents itself as one {@link ThriftChannel}, so core's {@code AsyncClients} encodes
 * and decodes on top of it. Each exchange checks that the reply's message header carries the
 * request's name and sequence id ({@link ReplyCheck}): a mismatch fails the call and closes the
 * connection.
 *
 * <p>A failed exchange closes its connection, failing the other calls it carries, unless the
 * channel refused the request before writing anything: a {@link FrameSizeException}, a {@link
 * TooManyPendingCallsException} or an {@link IllegalArgumentException}, which by the {@link
 * ThriftChannel} contract of the Netty and Grizzly channels fail only that call.
 *
 * <p>{@link #exchange} and {@link #send} never block: a free slot is taken on the calling thread;
 * otherwise the call waits in the pool's bounded queue ({@link AsyncBorrows}) and a connector
 * thread opens connections; the {@link Opener} runs there, never on the caller's thread.
 */
public final class MultiplexedPool implements ThriftChannel {

  /** Opens one channel; any exception is a connect failure. */
  public interface Opener {
    ThriftChannel connect(InetSocketAddress endpoint) throws Exception;
  }

  private final ReplyCheck replies;
  private final TProtocolFactory protocolFactory;
  private final SharedChannels shared;

  /** {@code null} without interceptors; see {@link #intercept}. */
  private ClientInterception interception;

  /** {@link PoolConfig#callDeadline()} in nanoseconds, 0 for none. */
  private final long deadlineNanos;

  /**
   * The channels' own request timeout in nanoseconds, 0 if unknown; see {@link #requestTimeout}.
   */
  private long requestTimeoutNanos;

  /** Hedge delay in nanoseconds for idempotent calls, 0 for none; see {@link #hedgeAfter}. */
  private volatile long hedge;

  /** Retries, resends and hedges; replaced by {@link #idempotent}. */
  private CallPolicy policy;

  public MultiplexedPool(
      String name,
      List<InetSocketAddress> endpoints,
      PoolConfig config,
      PoolMetrics metrics,
      Opener opener,
      TProtocolFactory protocolFactory,
      Predicate<? super ThriftChannel> validator,
      int maxInFlight) {
    this(
        name,
        endpoints,
        config,
        metrics,
        opener,
        protocolFactory,
        validator,
        maxInFlight,
        System::nanoTime);
  }

  /** A pool that follows {@code source}: started here, closed by {@link #close()}. */
  public MultiplexedPool(
      String name,
      EndpointSource source,
      PoolConfig config,
      PoolMetrics metrics,
      Opener opener,
      TProtocolFactory protocolFactory,
      Predicate<? super ThriftChannel> validator,
      int maxInFlight) {
    this(
        name,
        source,
        config,
        metrics,
        opener,
        protocolFactory,
        validator,
        maxInFlight,
        System::nanoTime);
  }

  /** With the clock that times endpoint back-offs; tests drive it by hand. */
  MultiplexedPool(
      String name,
      List<InetSocketAddress> endpoints,
      PoolConfig config,
      PoolMetrics metrics,
      Opener opener,
      TProtocolFactory protocolFactory,
      Predicate<? super ThriftChannel> validator,
      int maxInFlight,
      LongSupplier clock) {
    this(
        name,
        EndpointSource.of(endpoints),
        config,
        metrics,
        opener,
        protocolFactory,
        validator,
        maxInFlight,
        clock);
  }

  private MultiplexedPool(
      String name,
      EndpointSource source,
      PoolConfig config,
      PoolMetrics metrics,
      Opener opener,
      TProtocolFactory protocolFactory,
      Predicate<? super ThriftChannel> validator,
      int maxInFlight,
      LongSupplier clock) {
    this.replies = new ReplyCheck(protocolFactory);
    this.deadlineNanos = config.callDeadline().toNanos();
    this.protocolFactory = protocolFactory;
    this.shared =
        new SharedChannels(name, source, config, metrics, opener, validator, maxInFlight, clock);
    this.policy = new CallPolicy(name, null, shared);
  }

  /**
   * Runs {@code interception} around each call from now on; {@code null} for none. Called by the
   * owner before it shares the pool (it then publishes the pool through a final field).
   */
  public void intercept(ClientInterception interception) {
    this.interception = interception;
  }

  /**
   * Retries calls of the methods {@code idempotent} accepts once, on another endpoint, after a
   * transport error, within the retry budget; {@code null} for none. Set as {@link #intercept} is.
   */
  public void idempotent(Predicate<String> idempotent) {
    this.policy = new CallPolicy(shared.name(), idempotent, shared);
  }

  /**
   * Sends an idempotent call to a second endpoint when no reply has come {@code delay} after it was
   * sent, from the retry budget; zero for never. Set as {@link #intercept} is.
   */
  public void hedgeAfter(Duration delay) {
    this.hedge = delay.toNanos();
  }

  /**
   * The request timeout of the channels the opener makes, when the owner knows it: a call under a
   * deadline is sent with the smaller of it and the time left, so the channel gives up its slot at
   * the deadline rather than holding it until its own timeout. Unknown (a user's channel factory):
   * the time left alone. Set as {@link #intercept} is.
   */
  public void requestTimeout(Duration timeout) {
    this.requestTimeoutNanos = timeout.toNanos();
  }

  /** The endpoints now, in the source's order. */
  public List<InetSocketAddress> endpoints() {
    return shared.endpoints();
  }

  // ---- ThriftChannel: what AsyncClients sees ----

  @Override
  public CompletableFuture<ByteBuffer> exchange(ByteBuffer request) {
    return exchange(request, null);
  }

  @Override
  public CompletableFuture<ByteBuffer> exchange(ByteBuffer request, Duration timeout) {
    return exchange(request, timeout, deadlineNanos);
  }

  /**
   * This pool as a channel whose exchanges end at {@code deadlineNanos} instead of {@link
   * PoolConfig#callDeadline()} (0: none); everything else, {@link ThriftChannel#send} included, is
   * the pool's. The view owns nothing: closing it does nothing.
   */
  public ThriftChannel withDeadline(long deadlineNanos) {
    return new WithDeadline(deadlineNanos);
  }

  /** See {@link #withDeadline}. */
  private final class WithDeadline implements ThriftChannel {
    private final long deadlineNanos;

    WithDeadline(long deadlineNanos) {
      this.deadlineNanos = deadlineNanos;
    }

    @Override
    public CompletableFuture<ByteBuffer> exchange(ByteBuffer request) {
      return exchange(request, null);
    }

    @Override
    public CompletableFuture<ByteBuffer> exchange(ByteBuffer request, Duration timeout) {
      return MultiplexedPool.this.exchange(request, timeout, deadlineNanos);
    }

    @Override
    public CompletableFuture<Void> send(ByteBuffer request) {
      return MultiplexedPool.this.send(request);
    }

    @Override
    public int pendingCalls() {
      return MultiplexedPool.this.pendingCalls();
    }

    @Override
    public boolean isOpen() {
      return MultiplexedPool.this.isOpen();
    }

    @Override
    public SocketAddress remoteAddress() {
      return MultiplexedPool.this.remoteAddress();
    }

    @Override
    public void close() {
      // A view of one call's deadline: the pool's owner closes the pool.
    }
  }

  /** {@code deadlineNanos}: the pool's call deadline or the call's own, 0 for none. */
  private CompletableFuture<ByteBuffer> exchange(
      ByteBuffer request, Duration timeout, long deadlineNanos) {
    TMessage sent;
    try {
      sent = replies.header(request);
    } catch (TException | RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (deadlineNanos == 0) {
      return retrying(sent, request, timeout, null);
    }
    // The deadline fails the caller's future; the exchange under it is sent with the time left as
    // its timeout, so that its slot is given up then too.
    CallState state = new CallState(Deadline.in(deadlineNanos));
    CompletableFuture<ByteBuffer> result = new CompletableFuture<>();
    state.caller = result;
    ScheduledFuture<?> timer =
        Deadlines.schedule(
            () -> result.completeExceptionally(deadlinePassed(state)), deadlineNanos);
    retrying(sent, request, timeout, state)
        .whenComplete(
            (response, failure) -> {
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

  /** The part of a call a deadline watches: the attempt in progress and the caller's future. */
  private static final class CallState {
    final Deadline deadline;
    volatile AsyncBorrows.Choice choice;
    volatile CompletableFuture<ByteBuffer> caller;

    CallState(Deadline deadline) {
      this.deadline = deadline;
    }

    /** Set when an attempt is sent with the time left as its timeout. */
    volatile boolean timeoutIsDeadline;

    /**
     * Whether the deadline, not the endpoint, ended a call with {@code failure}: it has passed, or
     * the call timed out having been sent with the time left as its timeout (a timer may fire a
     * hair before the clock reaches the deadline).
     */
    boolean explains(Throwable failure) {
      if (deadline.passed()) {
        return true;
      }
      Throwable f = Failures.unwrap(failure);
      return timeoutIsDeadline
          && (f instanceof java.util.concurrent.TimeoutException
              || (f instanceof TTransportException
                  && ((TTransportException) f).getType() == TTransportException.TIMED_OUT));
    }

    /** Whether the caller has heard already, or its deadline passed: nothing more to send. */
    boolean over() {
      CompletableFuture<ByteBuffer> c = caller;
      return (c != null && c.isDone()) || deadline.passed();
    }
  }

  private static Deadline deadline(CallState state) {
    return state == null ? null : state.deadline;
  }

  /**
   * Whether nothing more is to be sent for the call: the pool closed, or {@link CallState#over}.
   */
  private boolean finished(CallState state) {
    return shared.isClosed() || (state != null && state.over());
  }

  /** An exchange, retried once elsewhere if its method is idempotent; {@code state} may be null. */
  private CompletableFuture<ByteBuffer> retrying(
      TMessage sent, ByteBuffer request, Duration timeout, CallState state) {
    if (!policy.idempotent(sent.name)) {
      AsyncBorrows.Choice choice = new AsyncBorrows.Choice();
      int from = request.position();
      return attempt(sent, request, timeout, choice, state)
          .exceptionallyCompose(
              failure -> {
                if (!policy.resends(
                    sent.name, failure, choice.sentTo != null, deadline(state), finished(state))) {
                  return CompletableFuture.failedFuture(failure);
                }
                ByteBuffer again = request.duplicate();
                again.position(from);
                return attempt(sent, again, timeout, new AsyncBorrows.Choice(choice.sentTo), state);
              });
    }
    return new Attempts(sent, request, timeout, state).start();
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
    private final AsyncBorrows.Choice first = new AsyncBorrows.Choice();
    private final CompletableFuture<ByteBuffer> result = new CompletableFuture<>();
    private final AtomicBoolean extraTaken = new AtomicBoolean();
    private final AtomicInteger outstanding = new AtomicInteger(1);

    Attempts(TMessage sent, ByteBuffer request, Duration timeout, CallState state) {
      this.sent = sent;
      this.request = request;
      this.timeout = timeout;
      this.state = state;
    }

    CompletableFuture<ByteBuffer> start() {
      run(first);
      long hedgeNanos = hedge;
      if (hedgeNanos > 0) {
        ScheduledFuture<?> timer = Deadlines.schedule(this::hedge, hedgeNanos);
        result.whenComplete((response, failure) -> timer.cancel(false));
      }
      return result;
    }

    /** One attempt; the channel reads the request from its position, so each gets its own view. */
    private void run(AsyncBorrows.Choice choice) {
      attempt(sent, request.duplicate(), timeout, choice, state)
          .whenComplete((response, failure) -> ended(response, failure));
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
      run(new AsyncBorrows.Choice(first.sentTo));
    }

    private void ended(ByteBuffer response, Throwable failure) {
      if (failure == null) {
        result.complete(response); // the first reply wins; a later one is dropped
        return;
      }
      if (first.sentTo != null // else a borrow failure: the borrow retried connects itself
          && Failures.inTransport(failure)
          && !over()
          && extraTaken.compareAndSet(false, true)
          && policy.retries(sent.name, failure, deadline(state), over())) {
        run(new AsyncBorrows.Choice(first.sentTo)); // replaces this attempt: as many outstanding
        return;
      }
      if (outstanding.decrementAndGet() == 0) {
        result.completeExceptionally(failure);
      }
    }
  }

  /** One attempt of an exchange: a slot now, or in the queue; {@code choice} learns where. */
  private CompletableFuture<ByteBuffer> attempt(
      TMessage sent,
      ByteBuffer request,
      Duration timeout,
      AsyncBorrows.Choice choice,
      CallState state) {
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
      choice.sentTo = conn.endpoint;
      return exchange(sent, conn, request, timeout, state);
    }
    CompletableFuture<ByteBuffer> result = new CompletableFuture<>();
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
                try {
                  choice.sentTo = c.endpoint;
                  relay(exchange(sent, c, request, timeout, state), result);
                } catch (RuntimeException | Error e) {
                  // Thrown on the thread that served the wait (an IO thread): the caller hears it.
                  result.completeExceptionally(e);
                }
              }
            });
    return result;
  }

  private static <T> void relay(CompletableFuture<T> from, CompletableFuture<T> to) {
    from.whenComplete(
        (value, failure) -> {
          if (failure != null) {
            to.completeExceptionally(failure);
          } else {
            to.complete(value);
          }
        });
  }

  /**
   * The exchange on a connection with a slot taken for it. A timed-out call fails alone and leaves
   * the connection open (its late reply is owed; see {@link ThriftChannel#abandonedCalls()}); what
   * counts against the endpoint is decided by {@link SharedChannels#callEnded}.
   */
  private CompletableFuture<ByteBuffer> exchange(
      TMessage sent, Conn conn, ByteBuffer request, Duration timeout, CallState state) {
    Call call;
    try {
      call = begin(sent, conn);
    } catch (TException refusal) {
      return CompletableFuture.failedFuture(refusal);
    }
    CompletableFuture<ByteBuffer> result = new CompletableFuture<>();
    CompletableFuture<ByteBuffer> reply;
    try {
      Duration bounded = boundedByDeadline(timeout, state);
      reply =
          bounded == null
              ? conn.channel.exchange(request)
              : conn.channel.exchange(request, bounded);
    } catch (RuntimeException e) {
      shared.release(conn, connectionFailure(e));
      end(call, null, e);
      return CompletableFuture.failedFuture(e);
    }
    reply.whenComplete(
        (response, failure) -> {
          if (failure != null) {
            shared.callEnded(conn, failure, state != null && state.explains(failure));
            shared.release(conn, connectionFailure(failure));
            end(call, null, failure);
            result.completeExceptionally(failure);
            return;
          }
          TException mismatch = replies.mismatch(sent, response, conn.endpoint);
          shared.callEnded(conn, mismatch, false);
          shared.release(conn, mismatch);
          end(call, response, mismatch);
          if (mismatch != null) {
            result.completeExceptionally(mismatch);
          } else {
            result.complete(response);
          }
        });
    return result;
  }

  /**
   * The timeout to send a call with: under a deadline, the smallest of the call's timeout, the
   * channels' own and the time left; {@code null} for the channel's default.
   */
  private Duration boundedByDeadline(Duration timeout, CallState state) {
    if (state == null) {
      return timeout;
    }
    long own = timeout != null ? timeout.toNanos() : requestTimeoutNanos;
    long bounded = state.deadline.attemptNanos(own, 0);
    if (bounded != own) {
      state.timeoutIsDeadline = true;
    }
    return Duration.ofNanos(bounded);
  }

  @Override
  public CompletableFuture<Void> send(ByteBuffer request) {
    TMessage sent = null;
    Conn conn;
    AsyncBorrows.Choice choice = new AsyncBorrows.Choice();
    try {
      if (interception != null) {
        sent = replies.header(request);
      }
      conn = shared.now(choice);
    } catch (TException | RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (conn != null) {
      return send(sent, conn, request);
    }
    TMessage header = sent;
    CompletableFuture<Void> result = new CompletableFuture<>();
    shared
        .later(choice)
        .whenComplete(
            (c, waitFailed) -> {
              if (waitFailed != null) {
                result.completeExceptionally(waitFailed);
              } else {
                try {
                  relay(send(header, c, request), result);
                } catch (RuntimeException | Error e) {
                  // Thrown on the thread that served the wait (an IO thread): the caller hears it.
                  result.completeExceptionally(e);
                }
              }
            });
    return result;
  }

  /** The oneway send on a connection with a slot taken for it. */
  private CompletableFuture<Void> send(TMessage sent, Conn conn, ByteBuffer request) {
    Call call;
    try {
      call = begin(sent, conn);
    } catch (TException refusal) {
      return CompletableFuture.failedFuture(refusal);
    }
    CompletableFuture<Void> written;
    try {
      written = conn.channel.send(request);
    } catch (RuntimeException e) {
      shared.release(conn, connectionFailure(e));
      end(call, null, e);
      return CompletableFuture.failedFuture(e);
    }
    if (call == null) {
      return written.whenComplete(
          (ok, failure) -> shared.release(conn, connectionFailure(failure)));
    }
    CompletableFuture<Void> result = new CompletableFuture<>();
    written.whenComplete(
        (ok, failure) -> {
          shared.release(conn, connectionFailure(failure));
          if (failure != null) {
            call.endWithFailure(failure);
            result.completeExceptionally(failure);
          } else {
            call.end(ClientCallOutcome.ONEWAY, null);
            result.complete(null);
          }
        });
    return result;
  }

  /**
   * Runs the interceptors' {@code beforeCall} for {@code sent} on {@code conn}: {@code null}
   * without interceptors. A refusal gives the connection back untouched: nothing was written.
   */
  private Call begin(TMessage sent, Conn conn) throws TException {
    if (interception == null) {
      return null;
    }
    try {
      return interception.begin(sent.name, sent.seqid, sent.type, conn.endpoint);
    } catch (TException refusal) {
      shared.release(conn, null);
      throw refusal;
    }
  }

  /** Ends {@code call}, if any: with its reply, or with the failure that stands in for one. */
  private void end(Call call, ByteBuffer response, Throwable failure) {
    if (call == null) {
      return;
    }
    if (failure != null) {
      call.endWithFailure(failure);
    } else {
      call.endWithReply(response, protocolFactory);
    }
  }

  /**
   * {@code failure} if it condemns the connection, or {@code null} if the channel refused the
   * request before writing a byte, or timed the call out alone, and stays usable for the calls it
   * carries. Without this, one oversized request or one slow call would close a connection and fail
   * up to {@code maxInFlight - 1} other calls.
   */
  private static Throwable connectionFailure(Throwable failure) {
    Throwable cause = failure;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof FrameSizeException
        || cause instanceof TooManyPendingCallsException
        || cause instanceof IllegalArgumentException
        || cause instanceof CallTimeoutException) {
      return null; // a timed-out call leaves the connection open, owing its late reply
    }
    return failure;
  }

  @Override
  public int pendingCalls() {
    return shared.pendingCalls();
  }

  @Override
  public boolean isOpen() {
    return !shared.isClosed();
  }

  /**
   * The endpoint when there is one; with several, an address that names them all, since a call may
   * go to any of them (errors about one connection name its own endpoint).
   */
  @Override
  public SocketAddress remoteAddress() {
    List<InetSocketAddress> endpoints = endpoints();
    return endpoints.size() == 1 ? endpoints.get(0) : new AnyOf(endpoints);
  }

  /** Stands for the endpoints of a pool in messages; not a connectable address. */
  private static final class AnyOf extends SocketAddress {
    private static final long serialVersionUID = 1L;
    private final String text;

    AnyOf(List<InetSocketAddress> endpoints) {
      StringBuilder sb = new StringBuilder("one of [");
      for (int i = 0; i < endpoints.size(); i++) {
        sb.append(i == 0 ? "" : ", ").append(Names.endpoint(endpoints.get(i)));
      }
      this.text = sb.append(']').toString();
    }

    @Override
    public String toString() {
      return text;
    }
  }

  /** The up/down state of one endpoint; for tests. */
  EndpointState state(InetSocketAddress endpoint) {
    return shared.state(endpoint);
  }

  /** One eviction run, as the evictor makes them; for tests. */
  void evict() {
    shared.evict();
  }

  public PoolStats stats() {
    return shared.stats();
  }

  /** Closes every connection (calls in flight fail) and wakes waiting borrowers. Idempotent. */
  @Override
  public void close() {
    shared.close();
  }
}
