package io.thriftnio.grizzly;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerStats;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.internal.server.LifecycleServer;
import io.thriftnio.core.settings.SettingException;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;

/**
 * A Thrift server on Grizzly 4.0: {@code TFramedTransport} on the wire, any {@code TProcessor} or
 * {@code TAsyncProcessor}, any protocol, and all three {@link IoStrategy IO strategies} mapped to
 * Grizzly's own.
 *
 * <pre>{@code
 * ThriftServer server = GrizzlyThriftServer.builder()
 *     .processor(new BenchService.Processor<>(handler))
 *     .ioStrategy(IoStrategy.WORKER)
 *     .workerThreads(32)
 *     .bind(new InetSocketAddress("127.0.0.1", 0))
 *     .build()
 *     .start();
 * }</pre>
 *
 * <p>The filter chain of every accepted connection:
 *
 * <pre>
 *  TransportFilter -&gt; connection guard -&gt; ThriftFrameFilter -&gt; ThriftServerFilter
 *                     (maxConnections)     (frame rules)         (ProcessorInvoker, ordered replies)
 * </pre>
 *
 * <p>Framed peers only by default; with {@link ServerBuilder#wireKinds} also unframed peers (a bare
 * {@code TSocket}) and HTTP/1.1 peers ({@code THttpClient}, posting to {@link
 * ServerBuilder#httpPath}) on the same port, told apart by each connection's first byte, their
 * replies unframed or HTTP responses, every other setting applying alike.
 *
 * <p>With {@linkplain ServerBuilder#tls TLS}, Grizzly's {@code SSLFilter} follows the guard. A
 * failed handshake, or one not complete within the handshake timeout after accept (checked by the
 * timer thread), closes the connection and counts in {@link ServerStats#tlsFailures()}. The {@code
 * OPENSSL} provider is refused at {@code build()}: Grizzly uses the JDK's TLS.
 *
 * <table>
 *   <caption>Strategies</caption>
 *   <tr><th>{@link IoStrategy}</th><th>Grizzly</th><th>threads</th></tr>
 *   <tr><td>{@code SAME_THREAD}</td><td>{@code SameThreadIOStrategy}</td>
 *       <td>{@code ioThreads} selector runners run the processor</td></tr>
 *   <tr><td>{@code WORKER}</td><td>{@code SameThreadIOStrategy} for reading; each request is
 *       then a task of its own</td>
 *       <td>a bounded pool of {@code workerThreads} (queue {@code workerQueueCapacity}), or the
 *           caller's {@code workerExecutor}, runs the calls, one connection's in parallel; a full
 *           pool is answered with {@code TApplicationException(INTERNAL_ERROR)} "server
 *           overloaded"</td></tr>
 *   <tr><td>{@code LEADER_FOLLOWER}</td><td>{@code LeaderFollowerNIOStrategy}</td>
 *       <td>{@code workerThreads} threads take turns as selector leader (unbounded queue: the
 *           strategy hands selector loops, not requests, to the pool), or the caller's
 *           executor, which must not reject</td></tr>
 * </table>
 *
 * <p>Memory comes from a pooled memory manager shared by this module. Each connection's async write
 * queue is bounded by {@code maxPendingWriteBytes}: above it the server stops reading from that
 * connection until the peer has taken its responses. Idle connections ({@code idleTimeout}) and
 * stalled partial frames ({@code frameTimeout}) are closed by a timer thread and counted in {@link
 * ServerStats#timedOutConnections()}. Threads are named {@code thrift-nio-grizzly-...}; the
 * selector threads are not daemon threads (a running server keeps the JVM alive, as on Netty).
 *
 * <p>{@link ThriftServer#close()} is graceful and idempotent: it stops accepting (new connections
 * are refused; with a {@link ServerBuilder#healthPath health path} the listening socket stays open
 * until the drain ends, and a connection accepted meanwhile is served for the probe alone: {@code
 * 503}), lets calls received answer for up to {@code drainTimeout}, answers each call that arrives
 * meanwhile {@code not run: the server is draining} ({@link io.thriftnio.core.NotRun}) without
 * running it, closes each connection once it is quiet, then closes every connection left and the
 * threads the server owns. Called in one of the server's calls or on a Grizzly selector thread, it
 * returns at once and the drain goes on in a thread named {@code
 * thrift-nio-grizzly-server-close-PORT}.
 *
 * <p>Grizzly itself logs through {@code java.util.logging}; this class logs through SLF4J.
 */
public final class GrizzlyThriftServer {

  private GrizzlyThriftServer() {}

  /** A builder; see {@link ServerBuilder} for the settings every server shares. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builds a {@link GrizzlyThriftServer}. Besides the {@linkplain ServerBuilder shared settings}, a
   * caller may supply its own {@link TCPNIOTransport}.
   */
  public static final class Builder extends ServerBuilder<Builder> {
    TCPNIOTransport transport;
    boolean ownsTransport;

    private Builder() {}

    /**
     * Validates the settings and creates the server with its filter chain, not yet started: no
     * thread runs and no socket is open until {@link ThriftServer#start()}.
     *
     * @throws SettingException as {@link ServerBuilder#build()}: a value out of range, a required
     *     value missing, or a setting the others would ignore or contradict
     * @throws IllegalStateException if TLS asks for the OPENSSL provider (Grizzly uses the JDK's
     *     TLS)
     */
    @Override
    public ThriftServer build() {
      return new GrizzlyServer(
              this,
              new LifecycleServer("Grizzly Thrift server", GrizzlyServer.THREAD_PREFIX, config()))
          .server();
    }

    /**
     * Serves on a caller's transport instead of one created by the server. If the transport is not
     * yet started, the server configures it (IO strategy, selector runners, worker pool, write
     * queue limit) and starts it; a started transport is used as it is, with its own strategy and
     * pools. The server binds its own listening connection on it and sets its filter chain on that
     * connection only. Default: none (the server creates and owns its transport).
     *
     * @param transport the transport
     * @param shutdownOnClose whether {@link ThriftServer#close()} shuts the transport down; when
     *     {@code false} only this server's connections are closed
     * @return this builder
     */
    public Builder ioTransport(TCPNIOTransport transport, boolean shutdownOnClose) {
      this.transport = transport;
      this.ownsTransport = shutdownOnClose;
      return this;
    }
  }
}
