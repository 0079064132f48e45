package io.thriftnio.pool;

import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.internal.client.InterceptedConnection;
import io.thriftnio.core.util.internal.Checks;
import io.thriftnio.core.util.internal.Reflection;
import io.thriftnio.pool.EndpointPool.Borrowed;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.apache.thrift.TException;
import org.apache.thrift.TServiceClient;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * A pool of generated synchronous Thrift clients, one connection each, keyed by endpoint.
 *
 * <pre>{@code
 * ThriftClientPool<BenchService.Client> pool = ThriftClientPool.builder(BenchService.Client::new)
 *     .endpoints(new InetSocketAddress("10.0.0.7", 9090))
 *     .maxPerEndpoint(64)
 *     .build();
 *
 * ByteBuffer reply = pool.call(client -> client.echo(payload));     // borrow, call, return
 * BenchService.Iface iface = pool.iface(BenchService.Iface.class);   // the same, per method call
 * long fired = pool.call(c -> {                                      // several calls, one connection
 *   c.sleep(1);
 *   return c.fired();
 * });
 * }</pre>
 *
 * <p>After each call the connection goes back to the pool if the call succeeded, or failed with a
 * declared IDL exception or a {@code TApplicationException} read from a whole reply, and the reply
 * was read to its end. After anything else (a transport, protocol or timeout error, a reply with
 * the wrong sequence id, an unexpected exception) the connection is closed: its stream may hold
 * half a reply. The error reaches the caller unchanged.
 *
 * <p>Borrowing picks an endpoint ({@link PoolBuilder#balancer(Balancer)}); a failed connect marks
 * it down for a back-off and the borrow moves on, within the retry budget ({@link
 * PoolBuilder#retryBudgetRatio(double)}). A call is never retried once its request may have been
 * written, except through {@link #iface} for a method declared {@link
 * PoolBuilder#idempotent(String...) idempotent}: once, on another endpoint, within the same budget.
 *
 * <p>An idle connection the peer closed leaves at once when its transport reports it (this
 * library's TLS transports over Netty and Grizzly do); otherwise it is found at the next borrow
 * ({@link PoolBuilder#testOnBorrow(boolean)}) or by the evictor.
 *
 * <p>Thread-safe. {@link #close()} is idempotent.
 *
 * @param <C> the generated client type
 */
public final class ThriftClientPool<C extends TServiceClient> implements AutoCloseable {

  /**
   * One or more calls on a borrowed client. For a method without a result, return {@code null}:
   * {@code c -> { c.sleep(10); return null; }}, or call it through {@link #iface(Class)}.
   *
   * @param <C> the generated client type
   * @param <R> the result
   */
  @FunctionalInterface
  public interface ClientCall<C, R> {
    /**
     * @param client the borrowed client, which must not be kept after this returns
     * @return the result
     * @throws TException what the client threw
     */
    R call(C client) throws TException;
  }

  private final String name;
  private final Class<?> clientClass;
  private final EndpointPool<SyncConnection<C>> pool;
  private final SyncCalls<C> calls;
  private final long deadlineNanos;

  private ThriftClientPool(Builder<C> b) {
    this.deadlineNanos = b.config().callDeadline().toNanos();
    this.clientClass = SyncConnection.sampleClientClass(b.clientFactory, b.protocolFactory());
    this.name = "ThriftClientPool[" + clientClass.getName() + "]";
    TProtocolFactory protocolFactory = b.protocolFactory();
    this.pool =
        new EndpointPool<>(
            name,
            b.endpointSource(),
            b.config(),
            b.metrics(),
            SyncConnection.connections(
                b.transportFactory::open,
                b.clientFactory,
                protocolFactory,
                b.validator(),
                b.interception(),
                SocketTransports.argumentHeaders(b.transportFactory, b.options())));
    pool.maxConnectionAge(ConnectionAge.of(b.maxConnectionAge()));
    this.calls = new SyncCalls<>(name, pool, b.idempotentMethods());
    calls.inheritDeadline(b.inheritDeadline());
  }

  /**
   * A builder.
   *
   * @param clientFactory the generated client's one-protocol constructor, {@code
   *     BenchService.Client::new}
   * @param <C> the generated client type
   * @return a new builder
   */
  public static <C extends TServiceClient> Builder<C> builder(
      Function<TProtocol, C> clientFactory) {
    return new Builder<>(clientFactory);
  }

  /**
   * Borrows a client, runs {@code call} on it, and returns or destroys the connection (see the
   * class comment).
   *
   * @param call what to do with the client, e.g. {@code c -> c.echo(payload)}
   * @param <R> the result
   * @return what {@code call} returned
   * @throws CallDeadlineException if {@link PoolBuilder#callDeadline(java.time.Duration)} passed,
   *     waiting for a connection or in the call (whose connection is then closed under it)
   * @throws PoolTimeoutException if no connection became available within the borrow timeout
   * @throws PoolException if the pool is closed, no endpoint is up, or the wait was interrupted
   *     (the interrupt flag is then set again)
   * @throws TException what the client threw, or a {@code TTransportException} if no endpoint could
   *     be connected to
   */
  public <R> R call(ClientCall<? super C, R> call) throws TException {
    Checks.notNull("call", call);
    return calls.call(null, call::call, deadlineNanos);
  }

  /**
   * Like {@link #call(ClientCall)}, with {@code deadline} in place of {@link
   * PoolBuilder#callDeadline(java.time.Duration)} for this call only, e.g. the time left of an
   * incoming request's budget. It bounds the wait for a connection (or a connect), the call, and a
   * retry together, exactly as the pool's deadline does; the borrow timeout still applies when it
   * is shorter.
   *
   * @param deadline how long the whole call may take from now; {@code > 0}, to nanosecond precision
   * @param call what to do with the client, e.g. {@code c -> c.echo(payload)}
   * @param <R> the result
   * @return what {@code call} returned
   * @throws CallDeadlineException if {@code deadline} passed, waiting for a connection or in the
   *     call (whose connection is then closed under it); its {@link
   *     CallDeadlineException#deadline()} is {@code deadline}
   * @throws IllegalArgumentException if {@code deadline} is zero or negative
   * @throws TException otherwise as {@link #call(ClientCall)}
   */
  public <R> R call(Duration deadline, ClientCall<? super C, R> call) throws TException {
    long nanos = Deadlines.checkPositive("deadline", deadline);
    Checks.notNull("call", call);
    return calls.call(null, call::call, nanos);
  }

  /**
   * A proxy implementing {@code iface} (the generated {@code Iface}) where every method borrows a
   * client, calls the same method on it, and returns or destroys the connection.
   *
   * @param iface the generated synchronous interface, {@code BenchService.Iface.class}
   * @param <I> the interface type
   * @return the proxy; thread-safe
   * @throws IllegalArgumentException if {@code iface} is not an interface the client implements
   */
  public <I> I iface(Class<I> iface) {
    Checks.notNull("iface", iface);
    Proxies.checkIface("iface", iface, clientClass);
    return Proxies.iface(
        iface,
        (method, args) ->
            calls.call(
                method.getName(),
                client -> Reflection.invoke(method, client, args),
                deadlineNanos));
  }

  /**
   * Borrows a client for several calls on one connection. Close the lease (try-with-resources) to
   * give the connection back.
   *
   * @return the lease
   * @throws TException as {@link #call(ClientCall)} does before calling
   */
  public Lease<C> lease() throws TException {
    return new Lease<>(this, pool.borrow());
  }

  /** The endpoints now: the fixed list in the order given, or the source's current set. */
  public List<InetSocketAddress> endpoints() {
    return pool.endpoints();
  }

  /** A snapshot of the pool's state and counters. */
  public PoolStats stats() {
    return pool.stats();
  }

  /**
   * Closes every connection and fails waiting borrowers with a {@link PoolException} saying the
   * pool is closed. Calls in progress lose their connection and fail; later borrows fail.
   * Idempotent.
   */
  @Override
  public void close() {
    pool.close();
  }

  @Override
  public String toString() {
    return name + "{endpoints=" + endpoints() + ", " + stats().gauges() + "}";
  }

  /**
   * A client borrowed for several calls. Not thread-safe: one thread uses it, then closes it.
   *
   * <p>{@link #call(ClientCall)} applies the pool's rules to each call: after a failure that may
   * have broken the stream, the lease is spoiled and its connection is destroyed on close. Calls
   * made directly on {@link #client()} are not seen; {@link #close()} still refuses to return a
   * connection that is closed or holds unread bytes. {@link #invalidate()} destroys it regardless.
   *
   * @param <C> the generated client type
   */
  public static final class Lease<C extends TServiceClient> implements AutoCloseable {
    private final ThriftClientPool<C> owner;
    private final Borrowed<SyncConnection<C>> borrowed;
    private Throwable spoiled;
    private boolean closed;

    private Lease(ThriftClientPool<C> owner, Borrowed<SyncConnection<C>> borrowed) {
      this.owner = owner;
      this.borrowed = borrowed;
    }

    /** The borrowed client; valid until the lease is closed. */
    public C client() {
      checkOpen();
      return borrowed.connection.client;
    }

    /** The endpoint the connection goes to. */
    public InetSocketAddress endpoint() {
      return borrowed.endpoint;
    }

    /**
     * Calls the client, noting a failure that spoils the connection.
     *
     * @param call what to do with the client
     * @param <R> the result
     * @return what {@code call} returned
     * @throws TException what the client threw
     */
    public <R> R call(ClientCall<? super C, R> call) throws TException {
      checkOpen();
      if (spoiled != null) {
        throw new IllegalStateException(
            "lease of a connection to " + borrowed.endpoint + " is spoiled by an earlier failure",
            spoiled);
      }
      return owner.calls.onLease(borrowed, call::call, failure -> spoiled = failure);
    }

    /** Marks the connection for destruction on {@link #close()}. */
    public void invalidate() {
      if (spoiled == null) {
        spoiled = new IllegalStateException("invalidated by the lease holder");
      }
    }

    /** Returns the connection, or destroys it if spoiled. Idempotent. */
    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      owner.calls.settle(borrowed, spoiled, false);
    }

    private void checkOpen() {
      if (closed) {
        throw new IllegalStateException("lease is closed");
      }
    }
  }

  /**
   * Builds a {@link ThriftClientPool}.
   *
   * @param <C> the generated client type
   */
  public static final class Builder<C extends TServiceClient> extends PoolBuilder<C, Builder<C>> {
    private final Function<TProtocol, C> clientFactory;
    private ClientTransportFactory transportFactory; // null: from io and options
    private ClientIo io; // null: stock sockets

    private Builder(Function<TProtocol, C> clientFactory) {
      this.clientFactory = clientFactory;
    }

    /**
     * Opens the connections with this library's sync transport on these IO threads ({@link
     * ClientIo#openTransport}, Netty or Grizzly), with {@link #options(ClientOptions)}. Default:
     * none, stock libthrift sockets ({@link ClientTransportFactory#stock(ClientOptions)}).
     *
     * @param io the client IO threads; the pool does not close them
     * @return this builder
     */
    public Builder<C> io(ClientIo io) {
      this.io = io;
      return this;
    }

    /**
     * Opens the connections with a factory of the caller's, which then decides every connection
     * setting: {@code build()} refuses it together with {@link #io(ClientIo)} or {@link
     * #options(ClientOptions)}. Default: none (stock sockets, or {@code io}, with the options).
     *
     * @param transportFactory not null
     * @return this builder
     */
    public Builder<C> transportFactory(ClientTransportFactory transportFactory) {
      this.transportFactory = transportFactory;
      return this;
    }

    /**
     * Builds the pool. No connection is opened until the first borrow (or the evictor's min idle
     * upkeep).
     *
     * @return the pool
     * @throws IllegalArgumentException if neither endpoints nor an endpoint source was given, or
     *     both, or naming a value out of range
     * @throws IllegalStateException naming a setting the chosen connections would ignore
     */
    public ThriftClientPool<C> build() {
      Checks.notNull("clientFactory", clientFactory);
      checkShared();
      endpointSource();
      transportFactory =
          SocketTransports.forSyncPool(transportFactory, io, options(), optionsGiven());
      if (interception() != null) {
        InterceptedConnection.checkDecoratable(protocolFactory());
      }
      return new ThriftClientPool<>(this);
    }
  }
}
