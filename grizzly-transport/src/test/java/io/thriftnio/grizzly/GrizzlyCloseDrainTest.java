package io.thriftnio.grizzly;

import static io.thriftnio.core.IoStrategy.LEADER_FOLLOWER;
import static io.thriftnio.core.IoStrategy.SAME_THREAD;
import static io.thriftnio.core.IoStrategy.WORKER;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.Cells;
import io.thriftnio.testkit.conformance.CloseDrainSuite;
import io.thriftnio.testkit.conformance.ServerCell;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The close under traffic (connect flood, pipelined calls in the drain) on Grizzly, 3 strategies.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("cells")
class GrizzlyCloseDrainTest extends CloseDrainSuite {

  @Parameter ServerCell<GrizzlyThriftServer.Builder> cell;

  static Stream<ServerCell<GrizzlyThriftServer.Builder>> cells() {
    return Cells.select(
        GrizzlyCloseDrainTest.class,
        List.of(
            GrizzlyCells.twoIoThreads(SAME_THREAD),
            GrizzlyCells.twoIoThreads(WORKER).asRepresentative(),
            GrizzlyCells.twoIoThreads(LEADER_FOLLOWER)));
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
