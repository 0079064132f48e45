package io.thriftnio.grizzly;

import static io.thriftnio.core.IoStrategy.LEADER_FOLLOWER;
import static io.thriftnio.core.IoStrategy.SAME_THREAD;
import static io.thriftnio.core.IoStrategy.WORKER;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.testkit.conformance.Matrix;
import io.thriftnio.testkit.conformance.ServerCell;
import io.thriftnio.testkit.conformance.TransportCells;
import io.thriftnio.testkit.tls.TestPki;
import java.util.List;

/**
 * The Grizzly servers of this module's test matrices: the cells of each {@link Matrix}, for the
 * suites' subclasses ({@code @ArgumentsSource(GrizzlyCells.class)}), and the factories the other
 * matrices are made of. Grizzly runs on NIO alone, so the native cells of a matrix are none here.
 */
final class GrizzlyCells extends TransportCells {

  @Override
  protected List<ServerCell<GrizzlyThriftServer.Builder>> cells(Matrix matrix) {
    return switch (matrix) {
      case STRATEGIES, STRATEGIES_AND_NATIVE_WORKER, PROTOCOLS ->
          List.of(
              defaults(SAME_THREAD),
              defaults(WORKER).asRepresentative(),
              defaults(LEADER_FOLLOWER));
      case STRATEGIES_AND_MUTUAL_TLS ->
          List.of(
              defaults(SAME_THREAD),
              defaults(WORKER),
              defaults(LEADER_FOLLOWER),
              defaults(LEADER_FOLLOWER)
                  .withTls("mutual-tls", TestPki.shared().mutualServerTls().build())
                  .asRepresentative());
      case TWO_IO_THREADS, IO_PATHS ->
          List.of(
              twoIoThreads(SAME_THREAD),
              twoIoThreads(WORKER).asRepresentative(),
              twoIoThreads(LEADER_FOLLOWER));
    };
  }

  /** A server with the builder's defaults. */
  static ServerCell<GrizzlyThriftServer.Builder> defaults(IoStrategy strategy) {
    return ServerCell.of("grizzly", "nio", GrizzlyThriftServer::builder, strategy);
  }

  /** A server with two selector threads. */
  static ServerCell<GrizzlyThriftServer.Builder> twoIoThreads(IoStrategy strategy) {
    return ServerCell.of(
        "grizzly", "nio", () -> GrizzlyThriftServer.builder().ioThreads(2), strategy);
  }
}
