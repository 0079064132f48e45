package io.thriftnio.it.bench;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.tls.TlsProvider;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.netty.NettyTransportType;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * The Netty rows: servers {@code netty/same-thread} and {@code netty/worker} on the default
 * transport ({@link NettyTransportType#AUTO}: epoll where it loads, else NIO; {@code
 * netty/leader-follower} exists for {@code serve} and explicit names only: the builder rejects it,
 * and that message is the skip reason), the same two strategies pinned to one transport for
 * explicit names only ({@code netty-nio/...}, {@code netty-epoll/...}, {@code netty-iouring/...};
 * where the transport cannot load, the builder's reason is the skip reason), clients {@code
 * netty-sync} ({@link NettyClientIo#openTransport}) and {@code netty-async} ({@link
 * NettyThriftChannel}), and the same two over HTTP ({@code netty-sync-http}, {@code
 * netty-async-http}: a {@code POST} per call to {@code /}, keep-alive) and over THeader ({@code
 * netty-sync-header}, {@code netty-async-header}, named only). TLS rows, named only: {@code
 * netty-tls/same-thread} and {@code netty-tls/worker} (the JDK's TLS), {@code netty-openssl/...}
 * (netty-tcnative's BoringSSL; where it cannot load, the builder's reason is the skip reason). Each
 * cell's clients run on their own event loops, one per processor, closed with the cell, and speak
 * TLS when the cell does.
 */
final class NettyRows implements RowProvider {

  @Override
  public void register(Rows rows) {
    for (IoStrategy s : IoStrategy.values()) {
      // The builder rejects LEADER_FOLLOWER; the row stays out of 'all' and says why if named.
      boolean listed = s != IoStrategy.LEADER_FOLLOWER;
      rows.server(new LibraryServerRow("netty", s, NettyThriftServer::builder, listed));
    }
    pinned(rows, "netty-nio", NettyTransportType.NIO);
    pinned(rows, "netty-epoll", NettyTransportType.EPOLL);
    pinned(rows, "netty-iouring", NettyTransportType.IO_URING);
    LibraryServerRow.interceptorRows(
        rows, "netty", NettyThriftServer::builder, IoStrategy.SAME_THREAD, IoStrategy.WORKER);
    tls(rows, "netty-tls", TlsProvider.JDK);
    tls(rows, "netty-openssl", TlsProvider.OPENSSL);
    rows.client(new Sync(WireKind.FRAMED));
    rows.client(new Async(WireKind.FRAMED));
    rows.client(new Sync(WireKind.HTTP));
    rows.client(new Async(WireKind.HTTP));
    rows.client(new Sync(WireKind.HEADER));
    rows.client(new Async(WireKind.HEADER));
    rows.client(new Sync(WireKind.SASL));
    rows.client(new Async(WireKind.SASL));
  }

  /** {@code family/same-thread} and {@code family/worker} on {@code transport}, named only. */
  private static void pinned(Rows rows, String family, NettyTransportType transport) {
    for (IoStrategy s : new IoStrategy[] {IoStrategy.SAME_THREAD, IoStrategy.WORKER}) {
      rows.server(
          new LibraryServerRow(
              family, s, () -> NettyThriftServer.builder().ioTransport(transport), false));
    }
  }

  /** {@code family/same-thread} and {@code family/worker} serving TLS with {@code provider}. */
  private static void tls(Rows rows, String family, TlsProvider provider) {
    for (IoStrategy s : new IoStrategy[] {IoStrategy.SAME_THREAD, IoStrategy.WORKER}) {
      rows.server(new LibraryServerRow(family, s, NettyThriftServer::builder, false, provider));
    }
  }

  static int clientIoThreads() {
    return Runtime.getRuntime().availableProcessors();
  }

  /**
   * The client options every Netty kind of {@code cell} starts from, speaking {@code transport}.
   */
  private static ClientOptions.Builder options(CellSpec cell, WireKind transport) {
    return ClientOptions.builder()
        .wireKind(transport)
        .httpPath(transport == WireKind.HTTP ? ServerBuilder.DEFAULT_HTTP_PATH : null)
        .sasl(transport == WireKind.SASL ? BenchSasl.client() : null)
        .tls(cell.tls());
  }

  private static final class Sync implements ClientKindRow {
    private final WireKind transport;

    Sync(WireKind transport) {
      this.transport = transport;
    }

    @Override
    public String name() {
      return ClientKindRow.named("netty-sync", transport);
    }

    @Override
    public boolean listed() {
      return transport != WireKind.HEADER && transport != WireKind.SASL; // named only: --wire
    }

    @Override
    public WireKind wireKind() {
      return transport;
    }

    @Override
    public ClientLoad open(CellSpec cell, InetSocketAddress address) throws Exception {
      NettyClientIo resources = NettyClientIo.create(clientIoThreads());
      Duration timeout = cell.callTimeout();
      return Lanes.syncConnections(
          cell,
          address,
          a -> resources.openTransport(a, options(cell, transport).callTimeout(timeout).build()),
          resources);
    }
  }

  private static final class Async implements ClientKindRow {
    private final WireKind transport;

    Async(WireKind transport) {
      this.transport = transport;
    }

    @Override
    public String name() {
      return ClientKindRow.named("netty-async", transport);
    }

    @Override
    public boolean listed() {
      return transport != WireKind.HEADER && transport != WireKind.SASL; // named only: --wire
    }

    @Override
    public WireKind wireKind() {
      return transport;
    }

    @Override
    public ClientLoad open(CellSpec cell, InetSocketAddress address) throws Exception {
      NettyClientIo resources = NettyClientIo.create(clientIoThreads());
      // Replies are decoded on the event loop and the next call starts from there: it never
      // blocks, and a hop to another executor would be measured as transport latency.
      return Lanes.asyncConnections(
          cell,
          address,
          a ->
              resources.openChannel(
                  a,
                  options(cell, transport)
                      .callTimeout(cell.callTimeout())
                      .callbackExecutor(Runnable::run)
                      .build()),
          Runnable::run,
          resources);
    }
  }
}
