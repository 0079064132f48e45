package io.thriftnio.netty;

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
 * The server fuzz suite against Netty servers on NIO, both strategies, every buffer from a tracking
 * allocator that must have them all back once the server has closed.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("cells")
class NettyServerFuzzTest extends ServerFuzzSuite {

  @Parameter ServerCell<NettyThriftServer.Builder> cell;

  private final LeakTrackingAllocator alloc = new LeakTrackingAllocator();

  static Stream<ServerCell<NettyThriftServer.Builder>> cells() {
    return Cells.select(
        NettyServerFuzzTest.class,
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
  protected ThriftServer start(
      TProtocolFactory protocol, BenchService.Iface handler, int maxFrameSize) throws Exception {
    return cell.newBuilder()
        .allocator(alloc)
        .processor(new BenchService.Processor<>(handler))
        .protocol(protocol)
        .ioStrategy(cell.strategy())
        .maxFrameSize(maxFrameSize)
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
        .build()
        .start();
  }

  @Override
  protected void afterClose() {
    alloc.assertAllReleased();
  }

  @Override
  protected int defaultInputs() {
    return 500; // a Netty connection costs more here than a Grizzly one: keeps the build's run
    // short
  }

  @Override
  protected long defaultSeed() {
    // The seeds of the runs before the matrix, one per strategy, so that their inputs stay the
    // same.
    return cell.strategy() == SAME_THREAD ? 9_2026_1122L : 7_2026_1122L;
  }
}
