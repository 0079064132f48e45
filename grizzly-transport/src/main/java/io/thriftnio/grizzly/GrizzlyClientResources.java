package io.thriftnio.grizzly;

import io.thriftnio.core.Framing;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.TooManyPendingCallsException;
import io.thriftnio.core.internal.Checks;
import io.thriftnio.core.internal.JdkTls;
import io.thriftnio.core.internal.NamedThreadFactory;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.grizzly.internal.Transports;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.transport.TTransportException;
import org.glassfish.grizzly.CompletionHandler;
import org.glassfish.grizzly.Connection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import org.glassfish.grizzly.filterchain.FilterChainBuilder;
import org.glassfish.grizzly.filterchain.TransportFilter;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.glassfish.grizzly.ssl.SSLFilter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client-side Grizzly {@link TCPNIOTransport} (selector threads, memory, a timer) shared by
 * many client connections: sync {@link TGrizzlyClientTransport}s and async {@link
 * GrizzlyThriftChannel}s. Create one per application, close it last.
 *
 * <pre>{@code
 * try (GrizzlyClientResources resources = GrizzlyClientResources.builder().build()) {
 *   TTransport transport = resources.newTransport(address);
 *   transport.open();
 *   BenchService.Client client = new BenchService.Client(new TBinaryProtocol(transport));
 *   ...
 *   ThriftChannel channel = resources.openChannel(address);
 *   BenchService.AsyncIface async = AsyncClients.asyncIface(BenchService.AsyncIface.class,
 *       channel, BenchService.Client::new, new TBinaryProtocol.Factory(), executor);
 * }
 * }</pre>
 *
 * <p>Every connection's chain is {@code TransportFilter -> ThriftFrameFilter(maxFrameSize) ->
 * ThriftClientFilter}, with Grizzly's {@code SSLFilter} after the transport filter when {@link
 * Builder#tls(ClientTls) TLS} is set: then every connection of this holder speaks TLS and is
 * handed out only once its handshake has completed. Thread-safe. {@link #close()} closes every connection and stops the
 * threads; it is idempotent.
 */
public final class GrizzlyClientResources implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(GrizzlyClientResources.class);
  private static final String THREAD_PREFIX = "thrift-nio-grizzly-client";

  /** Default {@link Builder#connectTimeout(Duration)}: 10 seconds. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

  /** Default {@link Builder#readTimeout(Duration)} and {@link Builder#requestTimeout}: 30 s. */
  public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(30);

  /** Default {@link Builder#workerThreads(int)}: {@value}. */
  public static final int DEFAULT_WORKER_THREADS = 16;

  private final TCPNIOTransport transport;
  private final ExecutorService workerPool;
  private final ScheduledThreadPoolExecutor timer;
  private final int maxFrameSize;
  private final int maxPendingCalls;
  private final Duration connectTimeout;
  private final Duration readTimeout;
  private final Duration requestTimeout;
  private final Executor callbackExecutor;
  private final IoStrategy ioStrategy;
  private final ClientTls tls;
  private final SSLContext sslContext;
  private final SSLFilter sslFilter;
  private final AtomicBoolean closed = new AtomicBoolean();

  private GrizzlyClientResources(Builder b) throws IOException {
    this.maxFrameSize = b.maxFrameSize;
    this.maxPendingCalls = b.maxPendingCalls;
    this.connectTimeout = b.connectTimeout;
    this.readTimeout = b.readTimeout;
    this.requestTimeout = b.requestTimeout;
    this.callbackExecutor = b.callbackExecutor;
    this.ioStrategy = b.ioStrategy;
    this.tls = b.tls;
    this.sslContext = tls != null ? JdkTls.clientContext(tls, "Grizzly") : null;
    this.sslFilter = sslContext != null ? TlsFilters.client(sslContext) : null;
    this.workerPool =
        b.ioStrategy == IoStrategy.SAME_THREAD
            ? null
            : Executors.newFixedThreadPool(
                b.workerThreads, new NamedThreadFactory(THREAD_PREFIX + "-worker"));
    this.transport =
        Transports.newTransport(
            THREAD_PREFIX, b.ioStrategy, b.ioThreads, workerPool, Integer.MAX_VALUE, true);
    FilterChainBuilder chain = FilterChainBuilder.stateless().add(new TransportFilter());
    if (sslFilter != null) {
      chain.add(sslFilter);
    }
    transport.setProcessor(
        chain.add(new ThriftFrameFilter(maxFrameSize)).add(new ThriftClientFilter()).build());
    this.timer = new ScheduledThreadPoolExecutor(1, new NamedThreadFactory(THREAD_PREFIX + "-timer"));
    timer.setRemoveOnCancelPolicy(true);
    try {
      transport.start();
    } catch (IOException | RuntimeException e) {
      timer.shutdownNow();
      if (workerPool != null) {
        workerPool.shutdownNow();
      }
      throw e;
    }
  }

  /** A builder with the defaults documented on each setter. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A sync transport to {@code address} with this holder's timeouts and frame limit, not yet
   * opened.
   *
   * @param address the server
   * @return the transport; call {@link TGrizzlyClientTransport#open()}
   */
  public TGrizzlyClientTransport newTransport(InetSocketAddress address) {
    return newTransport(address, connectTimeout, readTimeout);
  }

  /**
   * A sync transport to {@code address}, not yet opened.
   *
   * @param address the server
   * @param connectTimeout time allowed to connect; must be positive
   * @param readTimeout time allowed for a response to arrive after {@code flush()}; zero waits
   *     forever
   * @return the transport; call {@link TGrizzlyClientTransport#open()}
   */
  public TGrizzlyClientTransport newTransport(
      InetSocketAddress address, Duration connectTimeout, Duration readTimeout) {
    try {
      return new TGrizzlyClientTransport(
          this,
          Objects.requireNonNull(address, "address"),
          Checks.positive("connectTimeout", connectTimeout),
          Checks.nonNegative("readTimeout", readTimeout),
          newConfiguration());
    } catch (TTransportException e) {
      throw new IllegalStateException(e); // TEndpointTransport declares it; never thrown
    }
  }

  /**
   * Connects an async channel with this holder's request timeout and callback executor.
   *
   * @param address the server
   * @return the connected channel
   * @throws TTransportException if the connection cannot be made within the connect timeout
   */
  public GrizzlyThriftChannel openChannel(InetSocketAddress address) throws TTransportException {
    return openChannel(address, requestTimeout, callbackExecutor);
  }

  /**
   * Connects an async channel.
   *
   * @param address the server
   * @param requestTimeout the default time allowed per call; must be positive
   * @param callbackExecutor completes the channel's futures; {@code Runnable::run} completes them
   *     on the IO thread, which suits only callbacks that never block
   * @return the connected channel
   * @throws TTransportException if the connection cannot be made within the connect timeout
   */
  public GrizzlyThriftChannel openChannel(
      InetSocketAddress address, Duration requestTimeout, Executor callbackExecutor)
      throws TTransportException {
    Checks.positive("requestTimeout", requestTimeout);
    Objects.requireNonNull(callbackExecutor, "callbackExecutor");
    Connection<?> connection = connect(address, connectTimeout);
    return new GrizzlyThriftChannel(this, connection, requestTimeout, callbackExecutor);
  }

  /** The largest response payload accepted, in bytes. */
  public int maxFrameSize() {
    return maxFrameSize;
  }

  /** The most calls that may wait for responses on one channel. */
  public int maxPendingCalls() {
    return maxPendingCalls;
  }

  /** The TLS settings of every connection, or {@code null} for plain TCP. */
  public ClientTls tls() {
    return tls;
  }

  /** The IO strategy of the client transport. */
  public IoStrategy ioStrategy() {
    return ioStrategy;
  }

  TConfiguration newConfiguration() {
    return new TConfiguration(maxFrameSize, maxFrameSize, TConfiguration.DEFAULT_RECURSION_DEPTH);
  }

  ScheduledExecutorService timer() {
    return timer;
  }

  /**
   * Connects within {@code timeout}; a connection that completes after the wait gave up is closed.
   */
  @SuppressWarnings("rawtypes") // Grizzly's connect callback is declared on the raw type
  Connection<?> connect(InetSocketAddress address, Duration timeout) throws TTransportException {
    if (closed.get()) {
      throw new TTransportException(
          TTransportException.NOT_OPEN, "GrizzlyClientResources closed; cannot connect to " + address);
    }
    CompletableFuture<Connection<?>> result = new CompletableFuture<>();
    AtomicBoolean abandoned = new AtomicBoolean();
    transport.connect(
        address,
        new CompletionHandler<Connection>() {
          @Override
          public void completed(Connection connection) {
            if (abandoned.get() || !result.complete(connection)) {
              connection.closeSilently();
            }
          }

          @Override
          public void failed(Throwable t) {
            result.completeExceptionally(t);
          }

          @Override
          public void cancelled() {
            result.cancel(false);
          }

          @Override
          public void updated(Connection connection) {}
        });
    Connection<?> connection;
    try {
      connection = result.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      abandon(result, abandoned);
      throw new TTransportException(
          TTransportException.TIMED_OUT,
          "connect to " + address + " timed out after " + timeout.toMillis() + " ms");
    } catch (InterruptedException e) {
      abandon(result, abandoned);
      Thread.currentThread().interrupt();
      throw new TTransportException(
          TTransportException.NOT_OPEN, "interrupted while connecting to " + address, e);
    } catch (ExecutionException e) {
      throw new TTransportException(
          TTransportException.NOT_OPEN,
          "connect to " + address + " failed: " + e.getCause(),
          e.getCause());
    }
    return tls != null ? handshake(connection, address) : connection;
  }

  /** Runs the TLS handshake of a new connection within the handshake timeout, or closes it. */
  private Connection<?> handshake(Connection<?> connection, InetSocketAddress address)
      throws TTransportException {
    CompletableFuture<SSLEngine> done = new CompletableFuture<>();
    long timeoutMillis = tls.handshakeTimeout().toMillis();
    try {
      sslFilter.handshake(
          connection,
          new CompletionHandler<SSLEngine>() {
            @Override
            public void completed(SSLEngine engine) {
              done.complete(engine);
            }

            @Override
            public void failed(Throwable t) {
              done.completeExceptionally(t);
            }

            @Override
            public void cancelled() {
              done.cancel(false);
            }

            @Override
            public void updated(SSLEngine engine) {}
          },
          null,
          TlsFilters.clientEngines(sslContext, tls, address));
      done.get(timeoutMillis, TimeUnit.MILLISECONDS);
      return connection;
    } catch (TimeoutException e) {
      connection.closeSilently();
      throw new TTransportException(
          TTransportException.TIMED_OUT,
          "TLS handshake with " + address + " timed out after " + timeoutMillis + " ms");
    } catch (InterruptedException e) {
      connection.closeSilently();
      Thread.currentThread().interrupt();
      throw new TTransportException(
          TTransportException.NOT_OPEN, "interrupted during the TLS handshake with " + address, e);
    } catch (IOException | ExecutionException | RuntimeException e) {
      connection.closeSilently();
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw new TTransportException(
          TTransportException.NOT_OPEN,
          "TLS handshake with " + address + " failed: " + JdkTls.describe(cause),
          cause);
    }
  }

  private static void abandon(CompletableFuture<Connection<?>> result, AtomicBoolean abandoned) {
    abandoned.set(true);
    if (!result.cancel(false)) {
      Connection<?> late = result.getNow(null);
      if (late != null) {
        late.closeSilently();
      }
    }
  }

  /** Closes every connection of this holder and stops its threads. Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      transport.shutdownNow();
    } catch (IOException | RuntimeException e) {
      log.warn("Error shutting down the Grizzly client transport", e);
    }
    timer.shutdownNow();
    if (workerPool != null) {
      workerPool.shutdownNow();
    }
  }

  /** Builds a {@link GrizzlyClientResources}. Not thread-safe. */
  public static final class Builder {
    private IoStrategy ioStrategy = IoStrategy.SAME_THREAD;
    private int ioThreads = 1;
    private int workerThreads = DEFAULT_WORKER_THREADS;
    private int maxFrameSize = Framing.DEFAULT_MAX_FRAME_SIZE;
    private int maxPendingCalls = ThriftChannel.DEFAULT_MAX_PENDING_CALLS;
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private Duration readTimeout = DEFAULT_READ_TIMEOUT;
    private Duration requestTimeout = DEFAULT_READ_TIMEOUT;
    private Executor callbackExecutor = ForkJoinPool.commonPool();
    private ClientTls tls;

    private Builder() {}

    /**
     * Where response frames are handled. Default: {@link IoStrategy#SAME_THREAD}, which measured
     * fastest for clients in the reference Grizzly-Thrift benchmarks: handing a response to a
     * waiting thread costs little, and a worker hop only adds latency.
     *
     * @param ioStrategy the strategy
     * @return this builder
     */
    public Builder ioStrategy(IoStrategy ioStrategy) {
      this.ioStrategy = Checks.notNull("ioStrategy", ioStrategy);
      return this;
    }

    /**
     * Selector threads. Default: 1.
     *
     * @param ioThreads the number of selector runners
     * @return this builder
     */
    public Builder ioThreads(int ioThreads) {
      this.ioThreads = Checks.positive("ioThreads", ioThreads);
      return this;
    }

    /**
     * Worker threads for {@link IoStrategy#WORKER} and {@link IoStrategy#LEADER_FOLLOWER}.
     * Default: {@value GrizzlyClientResources#DEFAULT_WORKER_THREADS}.
     *
     * @param workerThreads the pool size
     * @return this builder
     */
    public Builder workerThreads(int workerThreads) {
      this.workerThreads = Checks.positive("workerThreads", workerThreads);
      return this;
    }

    /**
     * The largest response payload accepted, in bytes; a larger declared length closes the
     * connection. Also bounds requests. Default: {@value Framing#DEFAULT_MAX_FRAME_SIZE}.
     *
     * @param maxFrameSize the limit
     * @return this builder
     */
    public Builder maxFrameSize(int maxFrameSize) {
      this.maxFrameSize = Framing.checkMaxFrameSize(maxFrameSize);
      return this;
    }

    /**
     * The most calls that may wait for their responses at once on one channel, in calls. One more
     * fails at once with a {@link TooManyPendingCallsException} (nothing is sent; the channel stays
     * usable). Oneway messages do not count. Default: {@value
     * ThriftChannel#DEFAULT_MAX_PENDING_CALLS}.
     *
     * @param maxPendingCalls the limit
     * @return this builder
     */
    public Builder maxPendingCalls(int maxPendingCalls) {
      this.maxPendingCalls = Checks.positive("maxPendingCalls", maxPendingCalls);
      return this;
    }

    /**
     * Time allowed to establish a connection. Default: 10 seconds.
     *
     * @param connectTimeout a positive duration
     * @return this builder
     */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = Checks.positive("connectTimeout", connectTimeout);
      return this;
    }

    /**
     * Time a sync transport waits for response bytes before it fails with {@code TIMED_OUT} and
     * closes itself; zero waits forever. Default: 30 seconds.
     *
     * @param readTimeout a non-negative duration
     * @return this builder
     */
    public Builder readTimeout(Duration readTimeout) {
      this.readTimeout = Checks.nonNegative("readTimeout", readTimeout);
      return this;
    }

    /**
     * Default time allowed per call on a channel, from the call until its whole response has
     * arrived. Default: 30 seconds.
     *
     * @param requestTimeout a positive duration
     * @return this builder
     */
    public Builder requestTimeout(Duration requestTimeout) {
      this.requestTimeout = Checks.positive("requestTimeout", requestTimeout);
      return this;
    }

    /**
     * Completes the channels' futures. Default: {@link ForkJoinPool#commonPool()}, so a callback
     * that blocks (a sync call from inside it, say) stalls neither the selector thread nor the
     * other connections on it. Pass {@code Runnable::run} to complete on the IO thread that read
     * the response: a little less latency, for callbacks that never block and hand off
     * themselves, as {@link io.thriftnio.core.AsyncClients} does.
     *
     * @param callbackExecutor the executor
     * @return this builder
     */
    public Builder callbackExecutor(Executor callbackExecutor) {
      this.callbackExecutor = Checks.notNull("callbackExecutor", callbackExecutor);
      return this;
    }

    /**
     * Speaks TLS on every connection of the holder: a connect returns once the handshake has
     * completed, and fails with a {@link TTransportException} naming the peer if it fails ({@code
     * NOT_OPEN}) or does not complete within the handshake timeout ({@code TIMED_OUT}). Only the
     * {@code JDK} provider is supported. Default: {@code null}, plain TCP.
     *
     * @param tls the TLS settings, or {@code null} for plain TCP
     * @return this builder
     */
    public Builder tls(ClientTls tls) {
      this.tls = tls;
      return this;
    }

    /**
     * Starts the client transport.
     *
     * @return the holder
     * @throws IOException if Grizzly cannot start its selectors
     * @throws IllegalStateException if TLS asks for the OPENSSL provider
     */
    public GrizzlyClientResources build() throws IOException {
      return new GrizzlyClientResources(this);
    }
  }
}
