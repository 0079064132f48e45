package io.thriftnio.netty;

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
 * The THeader fuzz suite against Netty servers, both strategies, every buffer from a tracking
 * allocator that must have them all back once the server has closed.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("cells")
class NettyTHeaderFuzzTest extends THeaderFuzzSuite {

  @Parameter ServerCell<NettyThriftServer.Builder> cell;

  private final LeakTrackingAllocator alloc = new LeakTrackingAllocator();

  static Stream<ServerCell<NettyThriftServer.Builder>> cells() {
    return Cells.select(
        NettyTHeaderFuzzTest.class,
        List.of(
            NettyCells.on(
                NettyTransportType.AUTO,
                () -> NettyThriftServer.builder().ioThreads(2),
                SAME_THREAD),
            NettyCells.on(
                    NettyTransportType.AUTO,
                    () -> NettyThriftServer.builder().ioThreads(2).workerThreads(4),
                    WORKER)
                .asRepresentative()));
  }

  @Override
  protected ThriftServer start(BenchService.Iface handler, int maxFrameSize) throws Exception {
    return cell.newBuilder()
        .allocator(alloc)
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
  protected void afterClose() {
    alloc.assertAllReleased();
  }

  @Override
  protected long defaultSeed() {
    return cell.strategy() == SAME_THREAD ? 12_2026_1127L : 13_2026_1127L;
  }
}
