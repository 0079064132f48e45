package io.thriftnio.it.bench;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.tls.TlsProvider;
import io.thriftnio.grizzly.GrizzlyClientResources;
import io.thriftnio.grizzly.GrizzlyThriftServer;
import java.net.InetSocketAddress;

/**
 * The Grizzly rows: servers {@code grizzly/same-thread}, {@code grizzly/worker} and {@code
 * grizzly/leader-follower}, clients {@code grizzly-sync} ({@link
 * GrizzlyClientResources#openTransport}) and {@code grizzly-async} ({@code GrizzlyThriftChannel});
 * the TLS rows {@code grizzly-tls/same-thread} and {@code grizzly-tls/worker} (named only; the
 * JDK's TLS). Each cell's clients run on their own selector runners, one per processor, closed with
 * the cell, and speak TLS when the cell does.
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
    rows.client(new Sync());
    rows.client(new Async());
  }

  static GrizzlyClientResources resources(CellSpec cell) throws Exception {
    return GrizzlyClientResources.builder()
        .ioThreads(Runtime.getRuntime().availableProcessors())
        .build();
  }

  static ClientOptions options(CellSpec cell) {
    return ClientOptions.builder()
        .readTimeout(cell.callTimeout())
        .requestTimeout(cell.callTimeout())
        // Replies are decoded on the selector thread and the next call starts from there.
        .callbackExecutor(Runnable::run)
        .tls(cell.tls())
        .build();
  }

  private static final class Sync implements ClientKindRow {
    @Override
    public String name() {
      return "grizzly-sync";
    }

    @Override
    public ClientLoad open(CellSpec cell, InetSocketAddress address) throws Exception {
      GrizzlyClientResources resources = resources(cell);
      return Lanes.syncConnections(
          cell, address, a -> resources.openTransport(a, options(cell)), resources);
    }
  }

  private static final class Async implements ClientKindRow {
    @Override
    public String name() {
      return "grizzly-async";
    }

    @Override
    public ClientLoad open(CellSpec cell, InetSocketAddress address) throws Exception {
      GrizzlyClientResources resources = resources(cell);
      return Lanes.asyncConnections(
          cell, address, a -> resources.openChannel(a, options(cell)), Runnable::run, resources);
    }
  }
}
