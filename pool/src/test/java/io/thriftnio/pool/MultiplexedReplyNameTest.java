package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TMultiplexedProcessor;
import org.apache.thrift.protocol.TMultiplexedProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The sync pool checks that each reply names the method called, and a {@code TMultiplexedProcessor}
 * answers {@code bench:echo} as {@code echo}: a multiplexed client is still served.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MultiplexedReplyNameTest {

  @Test
  void aMultiplexedClientIsAnsweredUnderTheBareMethodName() throws Exception {
    TMultiplexedProcessor multiplexed = new TMultiplexedProcessor();
    multiplexed.registerProcessor("bench", new BenchService.Processor<>(new BenchHandler()));
    try (ThriftServer server =
            NettyThriftServer.builder()
                .processor(multiplexed)
                .ioStrategy(IoStrategy.WORKER)
                .ioThreads(1)
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .build()
                .start();
        ThriftClientPool<BenchService.Client> pool =
            ThriftClientPool.builder(
                    p -> new BenchService.Client(new TMultiplexedProtocol(p, "bench")))
                .endpoints(server.localAddress())
                .build()) {
      ByteBuffer reply = pool.call(c -> c.echo(ByteBuffer.wrap(new byte[] {1, 2, 3})));
      assertThat(reply.remaining()).isEqualTo(3);
    }
  }
}
