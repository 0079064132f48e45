package io.thriftnio.grizzly;

import static io.thriftnio.core.IoStrategy.LEADER_FOLLOWER;
import static io.thriftnio.core.IoStrategy.SAME_THREAD;
import static io.thriftnio.core.IoStrategy.WORKER;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.Cells;
import io.thriftnio.testkit.conformance.ServerCell;
import io.thriftnio.testkit.conformance.ServerHeadersSuite;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The server headers suite (response headers, deadlines, out-of-order replies) on Grizzly servers:
 * the three strategies.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("cells")
class GrizzlyServerHeadersTest extends ServerHeadersSuite {

  @Parameter ServerCell<GrizzlyThriftServer.Builder> cell;

  static Stream<ServerCell<GrizzlyThriftServer.Builder>> cells() {
    return Cells.select(
        GrizzlyServerHeadersTest.class,
        List.of(
            GrizzlyCells.defaults(SAME_THREAD),
            GrizzlyCells.defaults(WORKER),
            GrizzlyCells.defaults(LEADER_FOLLOWER).asRepresentative()));
  }

  @Override
  protected ServerBuilder<?> newServerBuilder() {
    return cell.newBuilder();
  }

  @Override
  protected IoStrategy strategy() {
    return cell.strategy();
  }
}
