package io.thriftnio.pool;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.internal.client.InterceptedConnection;
import io.thriftnio.core.util.internal.Checks;
import io.thriftnio.core.util.internal.Reflection;
import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import org.apache.thrift.TException;
import org.apache.thrift.async.AsyncMethodCallback;
import org.apache.thrift.async.TAsyncClient;
import org.apache.thrift.async.TAsyncClientFactory;
import org.apache.thrift.async.TAsyncClientManager;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TNonblockingTransport;

/**
 * A pool of Thrift's generated {@code AsyncClient}s over {@code TNonblockingSocket}, keyed by
 * endpoint.
 *
 * <p>A {@code TAsyncClient} carries one call at a time and is unusable for good after any error.
 * The pool lends a client for exactly one call, takes it back when the call completes, and destroys
 * it after any failure (a declared IDL exception included: libthrift closes the client's transport
 * for those too). Clients are spread round-robin over several {@code TAsyncClientManager}s, each
 * with its own selector thread, rather than one.
 *
 * <pre>{@code
 * ThriftAsyncClientPool<BenchService.AsyncClient> pool =
 *     ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
 *         .endpoints(new InetSocketAddress("10.0.0.7", 9090))
 *         .build();
 * CompletableFuture<ByteBuffer> reply = pool.call((client, callback) -> client.echo(payload, callback));
 * BenchService.AsyncIface iface = pool.asyncIface(BenchService.AsyncIface.class);
 * BenchService.FutureIface futures = pool.futureIface(BenchService.FutureIface.class);
 * }</pre>
 *
 * <p>Futures complete, and {@code AsyncMethodCallback}s run, on the options' callbackExecutor,
 * never on a selector thread.
 *
 * <p><b>THeader.</b> With {@code options(ClientOptions.builder().wireKind(WireKind.HEADER)...)} the
 * stock clients speak THeader: each framed request they write leaves as one THeader frame carrying
 * the call's {@code HeaderScope} headers, its interceptors' request headers and {@code
 * client_timeout}, and each THeader reply (bounded by the options' {@code maxFrameSize}, zlib
 * included) reaches the client as the framed reply it reads, its info headers in {@code
 * HeaderScope.responseHeaders()} and {@code ClientCallContext.responseHeaders()}. A reply that
 * cannot be read fails its call with a {@code TTransportException} naming the server, and the
 * connection is destroyed. The protocol must be strict binary or compact: a JSON or non-strict
 * binary call fails before anything is sent. Framed and THeader are the wire kinds the pool speaks;
 * its builder refuses others, and TLS.
 *
 * <p><b>SASL.</b> With {@code options(..)} of {@link io.thriftnio.core.WireKind#SASL}, each
 * connection negotiates SASL (libthrift's {@code TSaslClientTransport}, blocking, on the pool's
 * connecting thread) before the stock socket takes it over. The stock client sends plain frames, so
 * only the {@code auth} quality of protection is accepted: {@link Builder#build()} refuses {@code
 * auth-int} and {@code auth-conf}, which {@link ThriftChannelPool} carries.
 *
 * <p>A stock {@code TNonblockingSocket} gives no signal when the peer closes it while idle (an idle
 * client is registered with no selector), so such a connection is found at the next borrow ({@link
 * PoolBuilder#testOnBorrow(boolean)}, which peeks the socket) or by the evictor, not when it
 * closes.
 *
 * <p><b>Never blocks the caller.</b> {@link #call} and the methods of an {@link #asyncIface} or
 * {@link #futureIface} proxy return at once, so they may be called from an event-loop or selector
 * thread or a completion callback running there. A free connection is taken on the calling thread
 * (no thread hop); otherwise the call waits, as a future, in a queue of at most {@link
 * PoolBuilder#borrowQueueCapacity(int)} calls served in arrival order as connections free or open,
 * and fails with {@link PoolTimeoutException} after {@link
 * PoolBuilder#borrowTimeout(java.time.Duration)}; a call that finds the queue full fails at once
 * with a {@link PoolException}. Connections are opened by up to four connector threads of the pool
 * ({@code thrift-nio-pool-connect}), never on the caller's thread.
 *
 * <p>Thread-safe. {@link #close()} is idempotent; calls in flight then fail with {@link
 * PoolException} saying the pool is closed.
 *
 * @param <A> the generated async client type
 */
public final class ThriftAsyncClientPool<A extends TAsyncClient> implements AutoCloseable {
  /** Default {@link Builder#selectorThreads(int)}: {@value}. */
  public static final int DEFAULT_SELECTOR_THREADS = 2;

  /**
   * Creates a client on a manager's selector over a connected socket; the generated constructor.
   */
  @FunctionalInterface
  interface AsyncClientFactory<A extends TAsyncClient> {
    /**
     * Creates a client.
     *
     * @param protocolFactory the protocol
     * @param manager the selector thread the client runs on
     * @param transport its connected socket
     * @return the client
     */
    A create(
        TProtocolFactory protocolFactory,
        TAsyncClientManager manager,
        TNonblockingTransport transport);
  }

  /**
   * Starts one call on a borrowed client, e.g. {@code (c, cb) -> c.echo(payload, cb)}.
   *
   * @param <A> the generated async client type
   * @param <R> the result
   */
  @FunctionalInterface
  public interface AsyncCall<A, R> {
    /**
     * Starts the call; exactly one call, passing {@code callback} on.
     *
     * @param client the borrowed client
     * @param callback completes the pool's future
     * @throws TException what the client threw when starting the call
     */
    void start(A client, AsyncMethodCallback<R> callback) throws TException;
  }

  private final String name;
  private final AsyncClientConnections<A> connections;
  private final Class<?> clientClass;
  private final EndpointPool<AsyncConnection<A>> pool;
  private final AsyncCalls<A> calls;
  private final long deadlineNanos;

  private ThriftAsyncClientPool(Builder<A> b) {
    this.deadlineNanos = b.config().callDeadline().toNanos();
    this.clientClass = b.clientClass;
    this.name =
        "ThriftAsyncClientPool[" + (clientClass == null ? "?" : clientClass.getName()) + "]";
    this.connections =
        new AsyncClientConnections<>(
            b.clientFactory,
            b.protocolFactory(),
            b.options(),
            b.validator(),
            b.interception(),
            b.selectorThreads);
    try {
      this.pool =
          new EndpointPool<>(name, b.endpointSource(), b.config(), b.metrics(), connections);
      pool.maxConnectionAge(ConnectionAge.of(b.maxConnectionAge()));
    } catch (RuntimeException | Error e) {
      connections.close(); // the selector threads, started above
      throw e;
    }
    this.calls =
        new AsyncCalls<>(
            name,
            pool,
            b.config(),
            b.metrics(),
            b.options().callbackExecutor(),
            b.options().callTimeout().toMillis(),
            b.idempotentMethods(),
            this::stats);
    calls.inheritDeadline(b.inheritDeadline());
  }

  /**
   * A builder.
   *
   * @param clientFactory the generated async client's factory constructor, {@code
   *     BenchService.AsyncClient.Factory::new}: given the selector thread's manager and the
   *     protocol, it makes the clients of one connection
   * @param <A> the generated async client type
   * @return a new builder
   */
  public static <A extends TAsyncClient> Builder<A> builder(
      BiFunction<TAsyncClientManager, TProtocolFactory, ? extends TAsyncClientFactory<A>>
          clientFactory) {
    return new Builder<>(
        clientFactory == null // refused at build()
            ? null
            : (protocols, manager, transport) ->
                clientFactory.apply(manager, protocols).getAsyncClient(transport));
  }

  /**
   * Starts one call on a pooled client: at once when one is idle, else when one frees or opens.
   * Never blocks the caller.
   *
   * @param call starts the call, e.g. {@code (c, cb) -> c.echo(payload, cb)}
   * @param <R> the result
   * @return completes on the executor with the result, or exceptionally with what the call raised
   *     ({@code TException}s from the reply, a {@code TIMED_OUT} {@code TTransportException} after
   *     the call timeout, transport failures) or a borrow failure ({@link PoolTimeoutException},
   *     {@link PoolException}, also when no endpoint could be connected to)
   */
  public <R> CompletableFuture<R> call(AsyncCall<? super A, R> call) {
    Checks.notNull("call", call);
    CompletableFuture<R> future = new CompletableFuture<>();
    calls.call(call::start, future, null, deadlineNanos);
    return future;
  }

  /**
   * Like {@link #call(AsyncCall)}, with {@code deadline} in place of {@link
   * PoolBuilder#callDeadline(java.time.Duration)} for this call only, e.g. the time left of an
   * incoming request's budget. It bounds the wait in the queue (or a connect), the call, and a
   * retry together, exactly as the pool's deadline does: the future fails with {@link
   * CallDeadlineException} when it passes, and the client's call timeout is cut to end the call
   * just after it. The borrow timeout still applies when it is shorter. Never blocks the caller.
   *
   * @param deadline how long the whole call may take from now; {@code > 0}, to nanosecond precision
   * @param call starts the call, e.g. {@code (c, cb) -> c.echo(payload, cb)}
   * @param <R> the result
   * @return as {@link #call(AsyncCall)}, or failed with {@link CallDeadlineException} (whose {@link
   *     CallDeadlineException#deadline()} is {@code deadline}) when it passed
   * @throws IllegalArgumentException if {@code deadline} is zero or negative
   */
  public <R> CompletableFuture<R> call(Duration deadline, AsyncCall<? super A, R> call) {
    long nanos = Deadlines.checkPositive("deadline", deadline);
    Checks.notNull("call", call);
    CompletableFuture<R> future = new CompletableFuture<>();
    calls.call(call::start, future, null, nanos);
    return future;
  }

  /**
   * A proxy implementing {@code asyncIface} (the generated {@code AsyncIface}): every method
   * borrows a client, starts the same method on it, and calls the caller's callback on the executor
   * once the client is back in the pool or destroyed. A borrow failure reaches the callback's
   * {@code onError}.
   *
   * <p>Each method of the proxy returns at once; a call that finds no idle client waits in the
   * pool's queue.
   *
   * @param asyncIface the generated interface, {@code BenchService.AsyncIface.class}
   * @param <I> the interface type
   * @return the proxy; thread-safe
   * @throws IllegalArgumentException if the client does not implement {@code asyncIface}
   */
  public <I> I asyncIface(Class<I> asyncIface) {
    Checks.notNull("asyncIface", asyncIface);
    Proxies.checkIface("asyncIface", asyncIface, clientClass);
    return Proxies.asyncIface(asyncIface, name, this::startProxied);
  }

  /**
   * A proxy implementing {@code futureIface}, the {@code FutureIface} that Thrift's Java generator
   * writes with its {@code future_iface} option ({@code --gen java:future_iface}): every method
   * starts the client's method of the same name as {@link #asyncIface} does (same queue, retries of
   * idempotent methods, deadline, interceptors and stats) and returns its {@code
   * CompletableFuture}, completed on the executor; {@code CompletableFuture<Void>} for void
   * methods, and for oneway ones once written. A declared exception, a {@code
   * TApplicationException}, a transport failure or a borrow failure completes it exceptionally with
   * that exception; no method throws. A cancelled future does not stop its call.
   *
   * @param futureIface the generated interface, {@code BenchService.FutureIface.class}, or any
   *     interface of its shape
   * @param <F> the interface type
   * @return the proxy; thread-safe
   * @throws IllegalArgumentException if {@code futureIface} is not an interface, or naming the
   *     first method that has no counterpart with an {@code AsyncMethodCallback} on the client or
   *     does not return {@code CompletableFuture} of what its callback yields
   * @throws IllegalStateException if the client factory could not create a client to check against
   *     (it must accept an unconnected socket and no manager, as generated constructors do)
   */
  public <F> F futureIface(Class<F> futureIface) {
    Checks.notNull("futureIface", futureIface);
    if (clientClass == null) {
      throw new IllegalStateException(
          "futureIface: "
              + futureIface.getName()
              + " cannot be checked: the client factory failed to create a sample client");
    }
    return Proxies.futureIface(futureIface, clientClass, this::startProxied);
  }

  /** Starts {@code method} of a borrowed client with {@code args}, its last slot the callback. */
  private void startProxied(Method method, Object[] args, CompletableFuture<Object> future) {
    calls.call(
        (client, cb) -> {
          Object[] withPoolCallback = Arrays.copyOf(args, args.length);
          withPoolCallback[args.length - 1] = cb;
          Reflection.invoke(method, client, withPoolCallback);
        },
        future,
        calls.retryable(method.getName()),
        deadlineNanos);
  }

  /** The endpoints now: the fixed list in the order given, or the source's current set. */
  public List<InetSocketAddress> endpoints() {
    return pool.endpoints();
  }

  /** A snapshot of the pool's state and counters. */
  public PoolStats stats() {
    // Calls waiting in the queue; pool2's own waiters are the connector threads, not calls.
    return pool.stats().withWaiting(calls.waiting());
  }

  /**
   * Closes every connection, fails waiting borrowers and calls in flight with {@link PoolException}
   * saying the pool is closed, and stops the selector threads. Idempotent.
   */
  @Override
  public void close() {
    calls.close();
    connections.close();
  }

  @Override
  public String toString() {
    return name + "{endpoints=" + endpoints() + ", " + stats().gauges() + "}";
  }

  /**
   * Builds a {@link ThriftAsyncClientPool}.
   *
   * <p>It has no {@code io(ClientIo)}, unlike the other two pools' builders: a generated {@code
   * TAsyncClient} runs only on libthrift's {@code TAsyncClientManager} selector over a {@code
   * TNonblockingSocket}, which this pool opens itself ({@link #selectorThreads(int)}); it cannot
   * run on Netty's or Grizzly's IO threads. For pooled async calls over this library's transports,
   * use {@link ThriftChannelPool.Builder#io(io.thriftnio.core.ClientIo)}, whose {@code asyncIface}
   * and {@code futureIface} proxies serve the same generated interfaces.
   *
   * @param <A> the generated async client type
   */
  public static final class Builder<A extends TAsyncClient> extends PoolBuilder<A, Builder<A>> {
    private final AsyncClientFactory<A> clientFactory;
    private int selectorThreads = DEFAULT_SELECTOR_THREADS;
    private Class<?> clientClass;

    private Builder(AsyncClientFactory<A> clientFactory) {
      this.clientFactory = clientFactory;
    }

    /**
     * {@code TAsyncClientManager}s (one selector thread each) that clients are spread over,
     * round-robin. Default {@value #DEFAULT_SELECTOR_THREADS}.
     *
     * @param selectorThreads {@code > 0}
     * @return this builder
     */
    public Builder<A> selectorThreads(int selectorThreads) {
      this.selectorThreads = selectorThreads;
      return this;
    }

    /**
     * Builds the pool and starts its selector threads. No connection is opened until the first
     * borrow (or the evictor's min idle upkeep).
     *
     * @return the pool
     * @throws IllegalArgumentException if neither endpoints nor an endpoint source was given, or
     *     both
     * @throws IllegalStateException for options the stock clients cannot honour: TLS, a wire kind
     *     other than {@code FRAMED} or {@code HEADER}, interceptors in the options (the pool's go
     *     to {@code interceptors(..)})
     */
    public ThriftAsyncClientPool<A> build() {
      Checks.notNull("clientFactory", clientFactory);
      checkShared();
      Checks.positive("selectorThreads", selectorThreads);
      endpointSource();
      ClientOptions options = options();
      if (options.wireKind() == WireKind.SASL) {
        AsyncClientConnections.checkSasl(options.sasl().orElseThrow());
        // Checked above: the settings below are what a SASL connection may add to framed ones.
        options = options.toBuilder().wireKind(WireKind.FRAMED).sasl(null).build();
      }
      refuseConnectionSettings(
          options, "a stock TAsyncClient (plain TCP)", WireKind.HEADER, WireKind.SASL);
      if (interception() != null) {
        InterceptedConnection.checkDecoratable(protocolFactory());
      }
      clientClass = AsyncClientConnections.sampleClientClass(clientFactory, protocolFactory());
      return new ThriftAsyncClientPool<>(this);
    }
  }
}
