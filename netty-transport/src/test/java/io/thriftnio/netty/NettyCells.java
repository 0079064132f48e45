package io.thriftnio.netty;

import static io.thriftnio.core.IoStrategy.SAME_THREAD;
import static io.thriftnio.core.IoStrategy.WORKER;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.testkit.conformance.Cells;
import io.thriftnio.testkit.conformance.Matrix;
import io.thriftnio.testkit.conformance.ServerCell;
import io.thriftnio.testkit.conformance.TransportCells;
import io.thriftnio.testkit.tls.TestPki;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The Netty servers of this module's test matrices: the cells of each {@link Matrix}, for the
 * suites' subclasses ({@code @ArgumentsSource(NettyCells.class)}), and the factories the other
 * matrices are made of. A cell on a native transport carries {@link Cells#NATIVE_TRANSPORT} and
 * requires its transport: skipped with Netty's reason where it does not load, failed instead under
 * {@code THRIFTNIO_REQUIRE_NATIVE=1} (see {@link NativeSupport}). Netty has no LEADER_FOLLOWER.
 */
final class NettyCells extends TransportCells {

  @Override
  protected List<ServerCell<NettyThriftServer.Builder>> cells(Matrix matrix) {
    return switch (matrix) {
      case STRATEGIES -> List.of(defaults(SAME_THREAD), defaults(WORKER).asRepresentative());
      case STRATEGIES_AND_MUTUAL_TLS ->
          List.of(
              defaults(SAME_THREAD),
              defaults(WORKER),
              defaults(WORKER)
                  .withTls("mutual-tls", TestPki.shared().mutualServerTls().build())
                  .asRepresentative());
      case STRATEGIES_AND_NATIVE_WORKER ->
          List.of(
              defaults(SAME_THREAD),
              defaults(WORKER).asRepresentative(),
              on(
                  NettyTransportType.EPOLL,
                  () -> NettyThriftServer.builder().ioTransport(NettyTransportType.EPOLL),
                  WORKER));
      case TWO_IO_THREADS -> List.of(auto(SAME_THREAD), auto(WORKER).asRepresentative());
      case IO_PATHS ->
          List.of(
              nio(SAME_THREAD),
              nio(WORKER).asRepresentative(),
              on(NettyTransportType.EPOLL, SAME_THREAD),
              on(NettyTransportType.IO_URING, SAME_THREAD));
      case PROTOCOLS ->
          List.of(
              nio(SAME_THREAD),
              nio(WORKER).asRepresentative(),
              on(NettyTransportType.EPOLL, SAME_THREAD));
    };
  }

  /** A server on {@code transport} with two IO threads. */
  static ServerCell<NettyThriftServer.Builder> on(
      NettyTransportType transport, IoStrategy strategy) {
    return on(
        transport, () -> NettyThriftServer.builder().ioTransport(transport).ioThreads(2), strategy);
  }

  /** A server that {@code builder} makes on {@code transport}. */
  static ServerCell<NettyThriftServer.Builder> on(
      NettyTransportType transport,
      Supplier<NettyThriftServer.Builder> builder,
      IoStrategy strategy) {
    ServerCell<NettyThriftServer.Builder> cell =
        ServerCell.of("netty", transport.name().toLowerCase(Locale.ROOT), builder, strategy);
    return switch (transport) {
      case EPOLL, IO_URING ->
          cell.withTag(Cells.NATIVE_TRANSPORT)
              .withRequirement(() -> NativeSupport.assumeTransport(transport));
      case NIO, AUTO -> cell;
    };
  }

  /** A server on NIO with two IO threads. */
  static ServerCell<NettyThriftServer.Builder> nio(IoStrategy strategy) {
    return on(NettyTransportType.NIO, strategy);
  }

  /**
   * A server with the builder's defaults: {@link NettyTransportType#AUTO} (epoll where it loads)
   * and its default IO threads.
   */
  static ServerCell<NettyThriftServer.Builder> defaults(IoStrategy strategy) {
    return on(NettyTransportType.AUTO, NettyThriftServer::builder, strategy);
  }

  /** A server on {@link NettyTransportType#AUTO} with two IO threads. */
  static ServerCell<NettyThriftServer.Builder> auto(IoStrategy strategy) {
    return on(NettyTransportType.AUTO, () -> NettyThriftServer.builder().ioThreads(2), strategy);
  }
}
