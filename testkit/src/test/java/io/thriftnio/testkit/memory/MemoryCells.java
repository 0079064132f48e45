package io.thriftnio.testkit.memory;

import static io.thriftnio.core.IoStrategy.SAME_THREAD;
import static io.thriftnio.core.IoStrategy.WORKER;

import io.thriftnio.testkit.conformance.Matrix;
import io.thriftnio.testkit.conformance.ServerCell;
import io.thriftnio.testkit.conformance.TransportCells;
import java.util.List;

/**
 * {@link InMemoryThriftServer}'s cells: core's call path without socket IO, both strategies, both
 * representative. It has no TLS and no native IO, so the matrices that add them add nothing here.
 */
final class MemoryCells extends TransportCells {

  @Override
  protected List<ServerCell<InMemoryThriftServer.Builder>> cells(Matrix matrix) {
    return switch (matrix) {
      case STRATEGIES, STRATEGIES_AND_MUTUAL_TLS ->
          List.of(
              ServerCell.of("memory", "memory", InMemoryThriftServer::builder, SAME_THREAD)
                  .asRepresentative(),
              ServerCell.of("memory", "memory", InMemoryThriftServer::builder, WORKER)
                  .asRepresentative());
      default ->
          throw new IllegalArgumentException(
              "matrix: " + matrix + " (expected: STRATEGIES or STRATEGIES_AND_MUTUAL_TLS)");
    };
  }
}
