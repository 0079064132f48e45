package io.thriftnio.it.bench;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.tls.TlsProvider;
import io.thriftnio.grizzly.GrizzlyClientIo;
import io.thriftnio.grizzly.GrizzlyThriftServer;
import java.net.InetSocketAddress;

/**
 * The Grizzly rows: servers {@code grizzly/same-thread}, {@code grizzly/worker} and {@code
 * grizzly/leader-follower}, clients {@code grizzly-sync} ({@link GrizzlyClientIo#openTransport})
 * and {@code grizzly-async} ({@code GrizzlyThriftChannel}), and the same two over HTTP ({@code
 * grizzly-sync-http}, {@code grizzly-async-http}: a {@code POST} per call to {@code /}, keep-alive)
 * and over THeader ({@code grizzly-sync-header}, {@code grizzly-async-header}, named only); the TLS
 * rows {@code grizzly-tls/same-thread} and {@code grizzly-tls/worker} (named only; the JDK's TLS).
 * Each cell's clients run on their own selector runners, one per processor, closed with the cell,
 * and speak TLS when the cell does.
 */
final class GrizzlyRows implements RowProvider {

  @Override
  public void register(Rows rows) {
    for (IoStrategy s : IoStrategy.values()) {
      rows.server(new LibraryServerRow("grizzly", s, GrizzlyThriftServer::builder, true));
    }
    for (IoStrategy s : new IoStrategy[] {IoStrategy.SAME_THREAD, IoStrategy.WORKER}) {
      rows.server(
          new LibraryServerRow(
              "grizzly-tls", s, GrizzlyThriftServer::builder, false, TlsProvider.JDK));
    }
    LibraryServerRow.interceptorRows(
        rows, "grizzly", GrizzlyThriftServer::builder, IoStrategy.values());
    rows.client(new Sync(WireKind.FRAMED));
    rows.client(new Async(WireKind.FRAMED));
    rows.client(new Sync(WireKind.HTTP));
    rows.client(new Async(WireKind.HTTP));
    rows.client(new Sync(WireKind.HEADER));
    rows.client(new Async(WireKind.HEADER));
    rows.client(new Sync(WireKind.SASL));
    rows.client(new Async(WireKind.SASL));
  }

  static GrizzlyClientIo resources(CellSpec cell) throws Exception {
    return GrizzlyClientIo.create(Runtime.getRuntime().availableProcessors());
  }

  static ClientOptions options(CellSpec cell) {
    return options(cell, WireKind.FRAMED);
  }

  /**
   * The options of a Grizzly kind of {@code cell} speaking {@code transport}; over HTTP each call
   * is a {@code POST} to {@value ServerBuilder#DEFAULT_HTTP_PATH}, the path every row serves.
   */
  static ClientOptions options(CellSpec cell, WireKind transport) {
    return ClientOptions.builder()
        .wireKind(transport)
        .httpPath(transport == WireKind.HTTP ? ServerBuilder.DEFAULT_HTTP_PATH : null)
        .sasl(transport == WireKind.SASL ? BenchSasl.client() : null)
        .callTimeout(cell.callTimeout())
        // Replies are decoded on the selector thread and the next call starts from there.
        .callbackExecutor(Runnable::run)
        .tls(cell.tls())
        .build();
  }

  private static final class Sync implements ClientKindRow {
    private final WireKind transport;

    Sync(WireKind transport) {
      this.transport = transport;
    }

    @Override
    public String name() {
      return ClientKindRow.named("grizzly-sync", transport);
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
      GrizzlyClientIo resources = resources(cell);
      return Lanes.syncConnections(
          cell, address, a -> resources.openTransport(a, options(cell, transport)), resources);
    }
  }

  private static final class Async implements ClientKindRow {
    private final WireKind transport;

    Async(WireKind transport) {
      this.transport = transport;
    }

    @Override
    public String name() {
      return ClientKindRow.named("grizzly-async", transport);
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
      GrizzlyClientIo resources = resources(cell);
      return Lanes.asyncConnections(
          cell,
          address,
          a -> resources.openChannel(a, options(cell, transport)),
          Runnable::run,
          resources);
    }
  }
}
