package io.thriftnio.netty;

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
 * The close under traffic (connect flood, pipelined calls in the drain) on Netty, both strategies
 * (Netty has no leader-follower).
 */
@ParameterizedClass(name = "{0}")
@MethodSource("cells")
class NettyCloseDrainTest extends CloseDrainSuite {

  @Parameter ServerCell<NettyThriftServer.Builder> cell;

  static Stream<ServerCell<NettyThriftServer.Builder>> cells() {
    return Cells.select(
        NettyCloseDrainTest.class,
        List.of(NettyCells.auto(SAME_THREAD), NettyCells.auto(WORKER).asRepresentative()));
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
