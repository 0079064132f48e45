package io.thriftnio.grizzly;

import static io.thriftnio.core.IoStrategy.LEADER_FOLLOWER;
import static io.thriftnio.core.IoStrategy.SAME_THREAD;
import static io.thriftnio.core.IoStrategy.WORKER;

import io.thriftnio.core.ThriftServer;
import io.thriftnio.testkit.conformance.Cells;
import io.thriftnio.testkit.conformance.ServerCell;
import io.thriftnio.testkit.fuzz.ServerFuzzSuite;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.stream.Stream;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The server fuzz suite against Grizzly servers with two selector threads, the three strategies.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("cells")
class GrizzlyServerFuzzTest extends ServerFuzzSuite {

  @Parameter ServerCell<GrizzlyThriftServer.Builder> cell;

  static Stream<ServerCell<GrizzlyThriftServer.Builder>> cells() {
    return Cells.select(
        GrizzlyServerFuzzTest.class,
        List.of(
            GrizzlyCells.twoIoThreads(SAME_THREAD),
            ServerCell.of(
                    "grizzly",
                    "nio",
                    () -> GrizzlyThriftServer.builder().ioThreads(2).workerThreads(4),
                    WORKER)
                .asRepresentative(),
            GrizzlyCells.twoIoThreads(LEADER_FOLLOWER)));
  }

  @Override
  protected ThriftServer start(
      TProtocolFactory protocol, BenchService.Iface handler, int maxFrameSize) throws Exception {
    return cell.newBuilder()
        .processor(new BenchService.Processor<>(handler))
        .protocol(protocol)
        .ioStrategy(cell.strategy())
        .maxFrameSize(maxFrameSize)
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
        .build()
        .start();
  }

  @Override
  protected long defaultSeed() {
    // The seeds of the runs before the matrix, one per strategy, so that their inputs stay the
    // same.
    return switch (cell.strategy()) {
      case SAME_THREAD -> 8_2026_1122L;
      case WORKER -> 10_2026_1122L;
      case LEADER_FOLLOWER -> 11_2026_1122L;
    };
  }
}
