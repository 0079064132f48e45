package io.thriftnio.grizzly;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.testkit.fuzz.ServerFuzzSuite;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.apache.thrift.protocol.TProtocolFactory;

/** The server fuzz suite against a Grizzly server with the SAME_THREAD strategy. */
class GrizzlySameThreadServerFuzzTest extends ServerFuzzSuite {

  @Override
  protected ThriftServer start(
      TProtocolFactory protocol, BenchService.Iface handler, int maxFrameSize) throws Exception {
    return GrizzlyThriftServer.builder()
        .processor(new BenchService.Processor<>(handler))
        .protocol(protocol)
        .ioStrategy(IoStrategy.SAME_THREAD)
        .ioThreads(2)
        .maxFrameSize(maxFrameSize)
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
        .build()
        .start();
  }

  @Override
  protected long defaultSeed() {
    return 8_2026_1122L;
  }
}
