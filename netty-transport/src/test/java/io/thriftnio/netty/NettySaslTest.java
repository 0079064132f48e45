package io.thriftnio.netty;

import static io.thriftnio.core.IoStrategy.SAME_THREAD;
import static io.thriftnio.core.IoStrategy.WORKER;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.testkit.conformance.Cells;
import io.thriftnio.testkit.conformance.SaslSuite;
import io.thriftnio.testkit.conformance.ServerCell;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** libthrift's SASL client against Netty servers: both strategies on NIO, SAME_THREAD on epoll. */
@ParameterizedClass(name = "{0}")
@MethodSource("cells")
class NettySaslTest extends SaslSuite {

  @Parameter ServerCell<NettyThriftServer.Builder> cell;

  static Stream<ServerCell<NettyThriftServer.Builder>> cells() {
    return Cells.select(
        NettySaslTest.class,
        List.of(
            NettyCells.nio(SAME_THREAD),
            NettyCells.nio(WORKER).asRepresentative(),
            NettyCells.on(NettyTransportType.EPOLL, SAME_THREAD)));
  }

  @BeforeParameterizedClassInvocation
  static void cellRunsHere(ServerCell<?> cell) {
    cell.requirement().run();
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
