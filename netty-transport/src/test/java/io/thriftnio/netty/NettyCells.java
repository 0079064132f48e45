package io.thriftnio.netty;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.testkit.conformance.Cells;
import io.thriftnio.testkit.conformance.ServerCell;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The Netty servers of this module's test matrices. A cell on a native transport carries {@link
 * Cells#NATIVE_TRANSPORT} and requires its transport: skipped with Netty's reason where it does not
 * load, failed instead under {@code THRIFTNIO_REQUIRE_NATIVE=1} (see {@link NativeSupport}).
 */
final class NettyCells {

  private NettyCells() {}

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
