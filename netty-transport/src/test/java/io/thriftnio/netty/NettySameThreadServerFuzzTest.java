package io.thriftnio.netty;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.testkit.fuzz.ServerFuzzSuite;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * The server fuzz suite against a Netty server with the SAME_THREAD strategy, every buffer from a
 * tracking allocator that must have them all back once the server has closed.
 */
class NettySameThreadServerFuzzTest extends ServerFuzzSuite {

  private final LeakTrackingAllocator alloc = new LeakTrackingAllocator();

  @Override
  protected ThriftServer start(
      TProtocolFactory protocol, BenchService.Iface handler, int maxFrameSize) throws Exception {
    return NettyThriftServer.builder()
        .allocator(alloc)
        .processor(new BenchService.Processor<>(handler))
        .protocol(protocol)
        .ioStrategy(IoStrategy.SAME_THREAD)
        .ioThreads(2)
        .workerThreads(4)
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
    return 9_2026_1122L;
  }
}
