package io.thriftnio.grizzly;

import static io.thriftnio.core.IoStrategy.LEADER_FOLLOWER;
import static io.thriftnio.core.IoStrategy.SAME_THREAD;
import static io.thriftnio.core.IoStrategy.WORKER;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.Cells;
import io.thriftnio.testkit.conformance.SaslAdversarialSuite;
import io.thriftnio.testkit.conformance.ServerCell;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** Hostile and broken SASL peers on Grizzly servers, the three strategies. */
@ParameterizedClass(name = "{0}")
@MethodSource("cells")
class GrizzlySaslAdversarialTest extends SaslAdversarialSuite {

  @Parameter ServerCell<GrizzlyThriftServer.Builder> cell;

  static Stream<ServerCell<GrizzlyThriftServer.Builder>> cells() {
    return Cells.select(
        GrizzlySaslAdversarialTest.class,
        List.of(
            GrizzlyCells.defaults(SAME_THREAD),
            GrizzlyCells.defaults(WORKER).asRepresentative(),
            GrizzlyCells.defaults(LEADER_FOLLOWER)));
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
