package io.thriftnio.pool;

import io.thriftnio.core.AsyncClients;
import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.util.internal.AsyncCallers;
import io.thriftnio.core.util.internal.Checks;
import java.lang.invoke.MethodHandles;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;
import org.apache.thrift.TServiceClient;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * A pool of {@link ThriftChannel}s (this library's Netty or Grizzly clients, or any other
 * implementation), where one connection carries many calls in flight, keyed by endpoint.
 *
 * <pre>{@code
 * ThriftChannelPool<BenchService.Client> pool =
 *     ThriftChannelPool.builder(BenchService.Client::new)
 *         .io(io)
 *         .endpoints(new InetSocketAddress("10.0.0.7", 9090))
 *         .maxCallsInFlightPerConnection(64)
 *         .build();
 * CompletableFuture<ByteBuffer> reply =
 *     pool.call(c -> c.send_echo(payload), BenchService.Client::recv_echo);
 * CompletableFuture<Void> slept =
 *     pool.callVoid(c -> c.send_sleep(10), BenchService.Client::recv_sleep);
 * BenchService.AsyncIface iface = pool.asyncIface(BenchService.AsyncIface.class);
 * BenchService.FutureIface futures = pool.futureIface(BenchService.FutureIface.class);
 * }</pre>
 *
 * <p>Each call goes to the least loaded open connection of the chosen endpoint that has fewer than
 * {@link Builder#maxCallsInFlightPerConnection(int)} calls in flight; a new connection is opened
 * when all are full and the limits allow; otherwise the call waits in the pool's queue up to {@link
 * PoolBuilder#borrowTimeout(java.time.Duration)}. A connection that closes (the peer closed or
 * reset it) leaves the pool at once, from its {@link ThriftChannel#whenClosed} event. A connection
 * is closed when an exchange on it fails (timeout, transport failure) or its reply carries another
 * call's name or sequence id; the calls it still carried fail with it. Declared IDL exceptions,
 * {@code TApplicationException}s, and requests the channel refuses before writing them (a {@code
 * CORRUPTED_DATA} {@code TTransportException} for a request above its frame limit, {@code
 * IllegalArgumentException}) fail only their own call and leave it open. Encoding and decoding go
 * through the generated {@code Client}'s {@code send_x} / {@code recv_x} (core's {@link
 * AsyncClients}), which also numbers requests and rejects a reply to another call: {@link #call},
 * {@link #callVoid}, {@link #callOneway} and every {@link #asyncIface} and {@link #futureIface}
 * proxy of a pool draw from one sequence, so no two calls on a connection carry the same sequence
 * id (until it wraps, after 2<sup>32</sup> calls); futures complete on the options'
 * callbackExecutor.
 *
 * <p><b>Never blocks the caller.</b> {@link #call}, {@link #callVoid}, {@link #callOneway} and the
 * methods of an {@link #asyncIface} or {@link #futureIface} proxy return at once, so they may be
 * called from an event-loop or selector thread or a completion callback running there. A free
 * connection is taken on the calling thread (no thread hop); otherwise the call waits, as a future,
 * in a queue of at most {@link PoolBuilder#borrowQueueCapacity(int)} calls served in arrival order
 * as connections free or open, and fails with {@link PoolTimeoutException} after {@link
 * PoolBuilder#borrowTimeout(java.time.Duration)}; a call that finds the queue full fails at once
 * with a {@link PoolException}. Connections are opened by up to four connector threads of the pool
 * ({@code thrift-nio-pool-connect}), never on the caller's thread.
 *
 * <p>{@link PoolStats#active()} counts connections with calls in flight; {@link
 * PoolBuilder#minIdlePerEndpoint(int)} and {@link PoolBuilder#maxIdlePerEndpoint(int)} do not apply
 * (a shared connection is idle only between calls); idle connections are closed by the idle
 * timeout. Thread-safe; {@link #close()} is idempotent.
 *
 * @param <C> the generated client type
 */
public final class ThriftChannelPool<C extends TServiceClient> implements AutoCloseable {
  /** Default {@link Builder#maxCallsInFlightPerConnection(int)}: {@value}. */
  public static final int DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CONNECTION = 32;

  private final MultiplexedPool pool;
  private final AsyncCallers.Caller caller;
  private final BiFunction<TProtocol, TProtocol, C> clientFactory;
  private final TProtocolFactory protocolFactory;
  private final Executor executor;

  private ThriftChannelPool(Builder<C> b) {
    this.clientFactory = b.clientFactory;
    this.protocolFactory = b.protocolFactory();
    this.executor = b.options().callbackExecutor();
    this.pool =
        new MultiplexedPool(
            "ThriftChannelPool",
            b.endpointSource(),
            b.config(),
            b.metrics(),
            b.connector(),
            b.protocolFactory(),
            b.validator(),
            b.maxCallsInFlightPerConnection);
    pool.intercept(b.interception());
    pool.idempotent(b.idempotentMethods());
    pool.inheritDeadline(b.inheritDeadline());
    pool.hedgeAfter(b.hedgeAfter);
    pool.maxConnectionAge(b.maxConnectionAge());
    pool.callTimeout(b.options().callTimeout());
    this.caller = newCaller(pool, clientFactory, protocolFactory, executor);
  }

  /**
   * Core's caller behind {@link AsyncClients}, whose proxies and calls share one sequence of ids: a
   * route the API keeps to itself, installed when {@code AsyncClients} is initialized.
   */
  private static AsyncCallers.Caller newCaller(
      ThriftChannel channel,
      BiFunction<TProtocol, TProtocol, ?> clientFactory,
      TProtocolFactory protocolFactory,
      Executor executor) {
    try {
      MethodHandles.lookup().ensureInitialized(AsyncClients.class);
    } catch (IllegalAccessException impossible) {
      throw new IllegalStateException(impossible);
    }
    return AsyncCallers.create(channel, clientFactory, protocolFactory, executor);
  }

  /**
   * A builder. Say what opens the connections with {@link Builder#io(ClientIo)}: this library's
   * channels ({@code NettyClientIo}, {@code GrizzlyClientIo}), or channels of your own from a
   * {@link ClientIo} of yours.
   *
   * <pre>{@code
   * ThriftChannelPool<BenchService.Client> pool =
   *     ThriftChannelPool.builder(BenchService.Client::new)
   *         .io(io)
   *         .endpoints(address)
   *         .build();
   * }</pre>
   *
   * @param clientFactory the generated client's two-protocol constructor, {@code
   *     BenchService.Client::new}, used to encode and decode
   * @param <C> the generated client type
   * @return a new builder
   */
  public static <C extends TServiceClient> Builder<C> builder(
      BiFunction<TProtocol, TProtocol, C> clientFactory) {
    return new Builder<>(clientFactory);
  }

  /**
   * Calls a two-way method.
   *
   * <p>Returns at once: a call that finds no free connection waits in the pool's queue.
   *
   * @param send encodes the request, e.g. {@code c -> c.send_echo(payload)}
   * @param receive decodes the reply, e.g. {@code BenchService.Client::recv_echo}
   * @param <R> the result
   * @return completes on the executor with the result, or exceptionally with what {@code recv_x}
   *     threw, the connection's failure, or a borrow failure ({@link PoolTimeoutException}, {@link
   *     PoolException})
   */
  public <R> CompletableFuture<R> call(
      AsyncClients.Send<C> send, AsyncClients.Receive<C, R> receive) {
    return caller.call(send, receive);
  }

  /**
   * Like {@link #call(AsyncClients.Send, AsyncClients.Receive)}, with {@code deadline} in place of
   * {@link PoolBuilder#callDeadline(java.time.Duration)} for this call only, e.g. the time left of
   * an incoming request's budget. It bounds the wait in the queue (or a connect), the call, and a
   * retry or hedge together, exactly as the pool's deadline does: the future fails with {@link
   * CallDeadlineException} when it passes, and the call keeps its slot on the shared connection
   * until its reply comes (and is discarded). The borrow timeout still applies when it is shorter.
   * Returns at once.
   *
   * @param deadline how long the whole call may take from now; {@code > 0}, to nanosecond precision
   * @param send encodes the request, e.g. {@code c -> c.send_echo(payload)}
   * @param receive decodes the reply, e.g. {@code BenchService.Client::recv_echo}
   * @param <R> the result
   * @return as {@link #call(AsyncClients.Send, AsyncClients.Receive)}, or failed with {@link
   *     CallDeadlineException} (whose {@link CallDeadlineException#deadline()} is {@code deadline})
   *     when it passed
   * @throws IllegalArgumentException if {@code deadline} is zero or negative
   */
  public <R> CompletableFuture<R> call(
      Duration deadline, AsyncClients.Send<C> send, AsyncClients.Receive<C, R> receive) {
    long nanos = Deadlines.checkPositive("deadline", deadline);
    // Same sequence as every other call of the pool; only the exchange's deadline differs.
    return caller.over(pool.withDeadline(nanos)).call(send, receive);
  }

  /**
   * Calls a two-way void method, whose {@code recv_x} returns nothing and so cannot be a {@link
   * AsyncClients.Receive}: {@code callVoid(c -> c.send_sleep(10), BenchService.Client::recv_sleep)}
   * in place of {@code call(c -> c.send_sleep(10), c -> { c.recv_sleep(); return null; })}.
   * Otherwise as {@link #call(AsyncClients.Send, AsyncClients.Receive)}.
   *
   * @param send encodes the request, e.g. {@code c -> c.send_sleep(10)}
   * @param receive decodes the reply, e.g. {@code BenchService.Client::recv_sleep}
   * @return completes on the executor with {@code null}, or exceptionally as {@code call} does
   */
  public CompletableFuture<Void> callVoid(
      AsyncClients.Send<C> send, AsyncClients.ReceiveVoid<C> receive) {
    return caller.callVoid(send, receive);
  }

  /**
   * {@link #callVoid(AsyncClients.Send, AsyncClients.ReceiveVoid)} with its own deadline, as {@link
   * #call(Duration, AsyncClients.Send, AsyncClients.Receive)} has.
   *
   * @param deadline how long the whole call may take from now; {@code > 0}, to nanosecond precision
   * @param send encodes the request, e.g. {@code c -> c.send_sleep(10)}
   * @param receive decodes the reply, e.g. {@code BenchService.Client::recv_sleep}
   * @return as {@code callVoid}, or failed with {@link CallDeadlineException} when it passed
   * @throws IllegalArgumentException if {@code deadline} is zero or negative
   */
  public CompletableFuture<Void> callVoid(
      Duration deadline, AsyncClients.Send<C> send, AsyncClients.ReceiveVoid<C> receive) {
    long nanos = Deadlines.checkPositive("deadline", deadline);
    return caller.over(pool.withDeadline(nanos)).callVoid(send, receive);
  }

  /**
   * Sends a oneway method.
   *
   * <p>Returns at once, as {@link #call} does.
   *
   * @param send encodes the request, e.g. {@code c -> c.send_fire(payload)}
   * @return completes on the executor once the message is written
   */
  public CompletableFuture<Void> callOneway(AsyncClients.Send<C> send) {
    return caller.callOneway(send);
  }

  /**
   * A proxy implementing {@code asyncIface} (the generated {@code AsyncIface}) over the pool; see
   * {@link AsyncClients#asyncIface}. Callbacks run on the executor.
   *
   * <p>Each method of the proxy returns at once, as {@link #call} does.
   *
   * @param asyncIface the generated interface, {@code BenchService.AsyncIface.class}
   * @param <I> the interface type
   * @return the proxy; thread-safe
   */
  public <I> I asyncIface(Class<I> asyncIface) {
    // The pool's one caller: its sequence ids never repeat across call() and the proxies on a
    // shared connection, so a reply routed to the wrong call cannot pass the seqid check.
    return caller.asyncIface(asyncIface);
  }

  /**
   * A proxy implementing {@code futureIface}, the {@code FutureIface} that Thrift's Java generator
   * writes with its {@code future_iface} option ({@code --gen java:future_iface}; without it there
   * is none): each method is a {@link #call} (or {@link #callOneway}) through the generated
   * client's {@code send_x} and {@code recv_x}, with the same queue, interceptors, retries and
   * hedges of idempotent methods, deadline and stats as {@link #asyncIface}, and returns its {@code
   * CompletableFuture}, completed on the executor; {@code CompletableFuture<Void>} for void
   * methods, and for oneway ones once written. A declared exception, a {@code
   * TApplicationException} or a failure completes it exceptionally with that exception; no method
   * throws. A cancelled future does not stop its call. See {@link AsyncClients#futureIface}.
   *
   * @param futureIface the generated interface, {@code BenchService.FutureIface.class}, or any
   *     interface of its shape
   * @param <F> the interface type
   * @return the proxy; thread-safe
   * @throws IllegalArgumentException if {@code futureIface} is not an interface, or naming the
   *     first method with no {@code send_x} on the client or not returning {@code
   *     CompletableFuture} of what its {@code recv_x} returns
   */
  public <F> F futureIface(Class<F> futureIface) {
    return caller.futureIface(futureIface); // the pool's one sequence, as above
  }

  /** The endpoints now: the fixed list in the order given, or the source's current set. */
  public List<InetSocketAddress> endpoints() {
    return pool.endpoints();
  }

  /** A snapshot of the pool's state and counters. */
  public PoolStats stats() {
    return pool.stats();
  }

  /** Calls in flight across all connections. */
  public int callsInFlight() {
    return pool.callsInFlight();
  }

  /**
   * Closes every connection (calls in flight fail) and fails waiting borrowers with {@link
   * PoolException} saying the pool is closed. Idempotent.
   */
  @Override
  public void close() {
    pool.close();
  }

  @Override
  public String toString() {
    return "ThriftChannelPool{endpoints=" + endpoints() + ", " + stats().gauges() + "}";
  }

  /**
   * Builds a {@link ThriftChannelPool}.
   *
   * @param <C> the generated client type
   */
  public static final class Builder<C extends TServiceClient>
      extends PoolBuilder<ThriftChannel, Builder<C>> {
    private final BiFunction<TProtocol, TProtocol, C> clientFactory;
    private int maxCallsInFlightPerConnection = DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CONNECTION;
    private Duration hedgeAfter = Duration.ZERO;
    private ClientIo io;

    private Builder(BiFunction<TProtocol, TProtocol, C> clientFactory) {
      this.clientFactory = clientFactory;
    }

    MultiplexedPool.Opener connector() {
      // The pool's limit is the one setting: each channel is opened to carry exactly that many.
      ClientOptions options =
          options().toBuilder()
              .maxCallsInFlightPerConnection(maxCallsInFlightPerConnection)
              .build();
      return endpoint -> io.openChannel(endpoint, options);
    }

    /**
     * Opens the connections as channels of this library's transports on these IO threads: {@code
     * io.openChannel(endpoint, options)} with {@link #options(ClientOptions)}, so switching between
     * Netty and Grizzly changes only the IO threads. Channels of another {@link ThriftChannel}
     * implementation come from a {@link ClientIo} of your own, whose {@code openChannel} is given
     * the same options. Required; no default.
     *
     * @param io the transport's client IO threads; the pool does not close them
     * @return this builder
     */
    public Builder<C> io(ClientIo io) {
      this.io = io;
      return this;
    }

    /**
     * Calls one connection carries at once: the pool opens another connection (up to {@link
     * #maxPerEndpoint(int)}) rather than put more on one. The one place for this limit in a pool:
     * channels opened on {@link #io(ClientIo)} are opened with it, and {@code build()} refuses
     * {@link ClientOptions#maxCallsInFlightPerConnection()} set in the pool's options. Default
     * {@value #DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CONNECTION}.
     *
     * @param maxCallsInFlightPerConnection {@code > 0}
     * @return this builder
     */
    public Builder<C> maxCallsInFlightPerConnection(int maxCallsInFlightPerConnection) {
      this.maxCallsInFlightPerConnection = maxCallsInFlightPerConnection;
      return this;
    }

    /**
     * Hedged requests for the methods declared {@link PoolBuilder#idempotent(String...)
     * idempotent}: when no reply has come this long after such a call was sent, the same request
     * goes to another endpoint, taken from the retry budget ({@link
     * PoolBuilder#retryBudgetRatio(double)}, counted in {@link PoolStats#retries()}); the first
     * reply wins and the other is dropped when it arrives. A call makes at most one extra attempt,
     * hedge or retry. Set it near the p95 or p99 latency of the method: it trims the tail at the
     * cost of that share of extra requests. Zero turns hedging off. Default zero.
     *
     * @param hedgeAfter {@code >= 0}
     * @return this builder
     */
    public Builder<C> hedgeAfter(Duration hedgeAfter) {
      this.hedgeAfter = hedgeAfter;
      return this;
    }

    /**
     * Builds the pool. No connection is opened until the first call.
     *
     * @return the pool
     * @throws SettingException naming the first setting refused: no endpoints nor source, or both;
     *     no {@code io}; a value out of range; a setting of the options that the pool sets itself
     *     (interceptors, maxCallsInFlightPerConnection)
     */
    public ThriftChannelPool<C> build() {
      Checks.notNull("clientFactory", clientFactory);
      checkShared();
      Checks.positive("maxCallsInFlightPerConnection", maxCallsInFlightPerConnection);
      Checks.nonNegative("hedgeAfter", hedgeAfter);
      endpointSource();
      if (io == null) {
        throw new SettingException(
            "io", null, "a ClientIo that opens the channels: NettyClientIo, GrizzlyClientIo");
      }
      ClientOptions o = options();
      if (o.maxCallsInFlightPerConnection()
          != ThriftChannel.DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CONNECTION) {
        throw new SettingException(
            "options.maxCallsInFlightPerConnection",
            o.maxCallsInFlightPerConnection(),
            "unset: the pool's own maxCallsInFlightPerConnection ("
                + maxCallsInFlightPerConnection
                + ") is the limit of its channels");
      }
      if (!o.interceptors().isEmpty()) {
        throw new SettingException(
            "options.interceptors",
            o.interceptors(),
            "unset: a pool's interceptors go to its builder's interceptors(..)");
      }
      return new ThriftChannelPool<>(this);
    }
  }
}
