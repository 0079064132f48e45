package io.thriftnio.netty;

import static io.thriftnio.core.IoStrategy.SAME_THREAD;
import static io.thriftnio.core.IoStrategy.WORKER;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.Cells;
import io.thriftnio.testkit.conformance.ConnectionAgeSuite;
import io.thriftnio.testkit.conformance.ServerCell;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** The connection age suite on Netty servers with the builder's defaults, both strategies. */
@ParameterizedClass(name = "{0}")
@MethodSource("cells")
class NettyConnectionAgeTest extends ConnectionAgeSuite {

  @Parameter ServerCell<NettyThriftServer.Builder> cell;

  static Stream<ServerCell<NettyThriftServer.Builder>> cells() {
    return Cells.select(
        NettyConnectionAgeTest.class,
        List.of(NettyCells.defaults(SAME_THREAD), NettyCells.defaults(WORKER).asRepresentative()));
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
