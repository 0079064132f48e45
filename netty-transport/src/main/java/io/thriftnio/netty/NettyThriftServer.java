package io.thriftnio.netty;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerConfig;
import io.thriftnio.core.ServerStats;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.internal.server.LifecycleServer;
import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.util.internal.Checks;
import io.thriftnio.netty.internal.NettyTls;

/**
 * A Thrift server on Netty 4.2: framed transport, any {@code TProcessor} or {@code
 * TAsyncProcessor}, any protocol, and the {@link IoStrategy#SAME_THREAD} or {@link
 * IoStrategy#WORKER} thread model.
 *
 * <pre>{@code
 * ThriftServer server = NettyThriftServer.builder()
 *     .processor(new BenchService.Processor<>(handler))
 *     .protocol(new TCompactProtocol.Factory())
 *     .ioStrategy(IoStrategy.WORKER)
 *     .bind(new InetSocketAddress("127.0.0.1", 0))
 *     .build()
 *     .start();
 * }</pre>
 *
 * <p>Each connection's pipeline is {@code ThriftFrameDecoder} (limits) - {@code ThriftFrameEncoder}
 * - {@link ThriftServerHandler} (dispatch, response order, timeouts), behind an {@code SslHandler}
 * when {@link ServerBuilder#tls TLS} is set (a failed or timed-out handshake closes the connection
 * and counts in {@link ServerStats#tlsFailures()}). Threads: the event loops are named {@code
 * thrift-nio-netty-io-N} (they are not daemon threads: a running server keeps the JVM alive), the
 * server's own worker pool {@code thrift-nio-netty-worker-N}.
 *
 * <p>Framed peers only by default; with {@link ServerBuilder#wireKinds} also unframed peers (a bare
 * {@code TSocket}) and HTTP/1.1 peers ({@code THttpClient}, posting to {@link
 * ServerBuilder#httpPath}) on the same port, told apart by each connection's first byte, their
 * replies unframed or HTTP responses, every other setting applying alike.
 *
 * <p>Limits, all from the {@link ServerBuilder}: frames above {@code maxFrameSize} close their
 * connection; over {@code maxConnections} a new connection is accepted and closed at once; {@code
 * idleTimeout} closes a connection with no request and no call in flight; {@code handlerTimeout}
 * (off by default) answers a call that has not ended in time, so that the replies behind it leave;
 * {@code frameTimeout} closes one whose started frame does not complete; above {@code
 * maxPendingWriteBytes} of unwritten responses a connection is no longer read from until they
 * drain.
 *
 * <p>{@link ThriftServer#close()} is graceful: it stops accepting (new connections are refused;
 * with a {@link ServerBuilder#healthPath health path} the listening socket stays open until the
 * drain ends, and a connection accepted meanwhile is served for the probe alone: {@code 503}), lets
 * each open connection finish the calls it has received, answers each call that arrives meanwhile
 * {@code not run: the server is draining} ({@link io.thriftnio.core.NotRun}) without running it,
 * closes each connection once it is quiet, and after {@code drainTimeout} closes whatever is left;
 * then it stops the worker pool and, if the server owns them, the event loops. It is idempotent and
 * bounded in time. Called on one of the server's event loops or in one of its calls, it returns at
 * once and the drain goes on in a thread named {@code thrift-nio-netty-close-PORT}.
 */
public final class NettyThriftServer {

  private NettyThriftServer() {}

  /** A builder; see {@link ServerBuilder} for the settings every server shares. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builds a {@link NettyThriftServer}. Adds to the {@link ServerBuilder} settings the IO transport
   * and an optional caller-supplied event loop group. {@link IoStrategy#LEADER_FOLLOWER} is
   * rejected at {@link #build()}.
   */
  public static final class Builder extends ServerBuilder<Builder> {
    private NettyTransportType transport = NettyTransportType.AUTO;
    private EventLoopGroup eventLoopGroup;
    private boolean shutdownOnClose;
    private ByteBufAllocator allocator;

    Builder() {}

    /** For tests: the connections' buffer allocator. Default: Netty's. */
    Builder allocator(ByteBufAllocator allocator) {
      this.allocator = allocator;
      return this;
    }

    /**
     * The IO transport of the server's own event loops. Default: {@link NettyTransportType#AUTO}
     * (epoll when available, else NIO). Must stay {@code AUTO} when {@link
     * #eventLoopGroup(EventLoopGroup, boolean)} is set: the group's IO handler decides, and {@link
     * #build()} refuses both.
     *
     * @param ioTransport not null
     * @return this builder
     */
    public Builder ioTransport(NettyTransportType ioTransport) {
      this.transport = ioTransport;
      return this;
    }

    /**
     * Runs the server on the caller's event loops (accepting and serving) instead of creating
     * {@code ioThreads} of its own. The group must be a {@code MultiThreadIoEventLoopGroup} with
     * the NIO, epoll or io_uring IO handler. Default: none (the server creates its own).
     *
     * @param group the event loops
     * @param shutdownOnClose whether {@link ThriftServer#close()} shuts the group down
     */
    public Builder eventLoopGroup(EventLoopGroup group, boolean shutdownOnClose) {
      this.eventLoopGroup = group;
      this.shutdownOnClose = shutdownOnClose;
      return this;
    }

    /**
     * Validates the settings and creates the server, not yet started.
     *
     * @throws SettingException as {@link ServerBuilder#build()}, also if the strategy is {@link
     *     IoStrategy#LEADER_FOLLOWER} or an {@code ioTransport} other than AUTO is set beside an
     *     {@code eventLoopGroup}
     * @throws IllegalStateException if {@link NettyTransportType#EPOLL} or {@link
     *     NettyTransportType#IO_URING} is asked for and cannot be used on this machine, or if TLS
     *     is set with the OPENSSL provider and netty-tcnative is not available, or its key material
     *     is unusable
     */
    @Override
    public ThriftServer build() {
      ServerConfig config = config();
      if (config.ioStrategy() == IoStrategy.LEADER_FOLLOWER) {
        throw new SettingException(
            "ioStrategy",
            IoStrategy.LEADER_FOLLOWER,
            "SAME_THREAD or WORKER: Netty has no leader-follower event loop; use"
                + " GrizzlyThriftServer (thrift-nio-grizzly) for LEADER_FOLLOWER");
      }
      Checks.notNull("ioTransport", transport);
      if (eventLoopGroup != null && transport != NettyTransportType.AUTO) {
        throw new SettingException(
            "ioTransport",
            transport,
            "AUTO when eventLoopGroup is set: the group's IO handler decides");
      }
      IoTransport io =
          eventLoopGroup != null ? IoTransport.of(eventLoopGroup) : IoTransport.resolve(transport);
      SslContext ssl = config.tls() != null ? NettyTls.serverContext(config.tls()) : null;
      return new NettyServer(
              new LifecycleServer("Thrift server", "thrift-nio-netty", config, true),
              io,
              eventLoopGroup,
              shutdownOnClose,
              allocator,
              ssl)
          .server();
    }
  }
}
