package io.thriftnio.grizzly;

import static io.thriftnio.core.IoStrategy.LEADER_FOLLOWER;
import static io.thriftnio.core.IoStrategy.SAME_THREAD;
import static io.thriftnio.core.IoStrategy.WORKER;

import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.testkit.conformance.Cells;
import io.thriftnio.testkit.conformance.ServerCell;
import io.thriftnio.testkit.fuzz.THeaderFuzzSuite;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.stream.Stream;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The THeader fuzz suite against Grizzly servers with two selector threads, the three strategies.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("cells")
class GrizzlyTHeaderFuzzTest extends THeaderFuzzSuite {

  @Parameter ServerCell<GrizzlyThriftServer.Builder> cell;

  static Stream<ServerCell<GrizzlyThriftServer.Builder>> cells() {
    return Cells.select(
        GrizzlyTHeaderFuzzTest.class,
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
  protected ThriftServer start(BenchService.Iface handler, int maxFrameSize) throws Exception {
    return cell.newBuilder()
        .processor(new BenchService.Processor<>(handler))
        .protocol(new TBinaryProtocol.Factory())
        .ioStrategy(cell.strategy())
        .maxFrameSize(maxFrameSize)
        .wireKinds(WireKind.FRAMED, WireKind.HEADER)
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
        .build()
        .start();
  }

  @Override
  protected long defaultSeed() {
    return switch (cell.strategy()) {
      case SAME_THREAD -> 14_2026_1127L;
      case WORKER -> 15_2026_1127L;
      case LEADER_FOLLOWER -> 16_2026_1127L;
    };
  }
}
