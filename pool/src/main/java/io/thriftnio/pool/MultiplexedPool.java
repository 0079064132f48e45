package io.thriftnio.pool;

import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.internal.client.ClientInterception;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.TooManyCallsInFlightException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * Shared connections, each carrying up to {@code maxInFlight} calls, per endpoint, presented as one
 * {@link ThriftChannel}. This class is the front: {@link CallAttempts} runs each exchange's
 * attempts (deadline, retry, hedge), {@link ConnectionCalls} one call on one connection, and {@link
 * SharedChannels} keeps the books.
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
 * TooManyCallsInFlightException} or an {@link IllegalArgumentException}, which by the {@link
 * ThriftChannel} contract of the Netty and Grizzly channels fail only that call.
 *
 * <p>{@link #exchange} and {@link #send} never block: a free slot is taken on the calling thread;
 * otherwise the call waits in the pool's bounded queue ({@link AsyncBorrows}) and a connector
 * thread opens connections; the {@link Opener} runs there, never on the caller's thread.
 */
final class MultiplexedPool implements ThriftChannel {

  /** Opens one channel; any exception is a connect failure. */
  public interface Opener {
    ThriftChannel connect(InetSocketAddress endpoint) throws Exception;
  }

  private final ReplyCheck replies;
  private final SharedChannels shared;
  private final ConnectionCalls calls;
  private final CallAttempts attempts;

  /** {@link PoolConfig#callDeadline()} in nanoseconds, 0 for none. */
  private final long deadlineNanos;

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
        EndpointSource.of(endpoints),
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

  /**
   * With the clock that times endpoint back-offs; the public constructors pass {@code
   * System::nanoTime}, tests a clock they drive by hand.
   */
  MultiplexedPool(
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
    this.shared =
        new SharedChannels(
            name, source, config, metrics, opener::connect, validator, maxInFlight, clock);
    this.calls = new ConnectionCalls(shared, replies, protocolFactory);
    this.attempts = new CallAttempts(shared, replies, calls, PoolCallLimit.of(name, config));
  }

  /**
   * Runs {@code interception} around each call from now on; {@code null} for none. Called by the
   * owner before it shares the pool (it then publishes the pool through a final field).
   */
  public void intercept(ClientInterception interception) {
    calls.intercept(interception);
  }

  /**
   * Retries calls of the methods {@code idempotent} accepts once, on another endpoint, after a
   * transport error, within the retry budget; {@code null} for none. Set as {@link #intercept} is.
   */
  public void idempotent(Predicate<String> idempotent) {
    attempts.idempotent(idempotent);
  }

  /** See {@link PoolBuilder#inheritDeadline(boolean)}. */
  public void inheritDeadline(boolean inherit) {
    attempts.inheritDeadline(inherit);
  }

  /**
   * Retires each connection after {@code age} (jittered; zero for never): it then takes no new call
   * and closes once its calls are done. Set as {@link #intercept} is.
   */
  public void maxConnectionAge(Duration age) {
    shared.maxConnectionAge(ConnectionAge.of(age));
  }

  /**
   * Sends an idempotent call to a second endpoint when no reply has come {@code delay} after it was
   * sent, from the retry budget; zero for never. Set as {@link #intercept} is.
   */
  public void hedgeAfter(Duration delay) {
    attempts.hedgeAfter(delay);
  }

  /**
   * The request timeout of the channels the opener makes, when the owner knows it: a call under a
   * deadline is sent with the smaller of it and the time left, so the channel gives up its slot at
   * the deadline rather than holding it until its own timeout. Unknown (a user's channel factory):
   * the time left alone. Set as {@link #intercept} is.
   */
  public void callTimeout(Duration timeout) {
    calls.callTimeout(timeout);
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
    return new DeadlineChannel(this, deadlineNanos);
  }

  /** {@code deadlineNanos}: the pool's call deadline or the call's own, 0 for none. */
  CompletableFuture<ByteBuffer> exchange(ByteBuffer request, Duration timeout, long deadlineNanos) {
    return attempts.exchange(request, timeout, deadlineNanos);
  }

  @Override
  public CompletableFuture<Void> send(ByteBuffer request) {
    TMessage sent = null;
    Conn conn;
    AsyncBorrows.Choice choice = new AsyncBorrows.Choice();
    try {
      if (calls.intercepts()) {
        sent = replies.header(request);
      }
      conn = shared.now(choice);
    } catch (TException | RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (conn != null) {
      return calls.send(sent, conn, request);
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
                  ConnectionCalls.relay(calls.send(header, c, request), result);
                } catch (RuntimeException | Error e) {
                  // Thrown on the thread that served the wait (an IO thread): the caller hears it.
                  result.completeExceptionally(e);
                }
              }
            });
    return result;
  }

  @Override
  public int callsInFlight() {
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
    return endpoints.size() == 1 ? endpoints.get(0) : new AnyOfAddress(endpoints);
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
