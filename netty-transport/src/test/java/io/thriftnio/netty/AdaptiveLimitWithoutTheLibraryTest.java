package io.thriftnio.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code adaptiveLimit} needs Netflix concurrency-limits, an optional dependency of core that this
 * module's tests do not have: {@code build()} says what is missing instead of a server that fails
 * on its first call with a {@code NoClassDefFoundError}, and a server without the setting never
 * needs the library.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AdaptiveLimitWithoutTheLibraryTest {

  @Test
  void buildSaysTheLibraryIsMissing() {
    assertThatThrownBy(
            () ->
                NettyThriftServer.builder()
                    .processor(new BenchService.Processor<>(new BenchHandler()))
                    .bind(new InetSocketAddress("127.0.0.1", 0))
                    .adaptiveLimit(100)
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith(
            "adaptiveLimit: 100 needs com.netflix.concurrency-limits:concurrency-limits-core (0.5.4)"
                + " on the class path");
  }

  @Test
  void aServerWithoutTheSettingServesWithoutTheLibrary() throws Exception {
    try (ThriftServer server =
        NettyThriftServer.builder()
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .build()) {
      server.start();
      try (TTransport socket =
          new TFramedTransport(new TSocket("127.0.0.1", server.localAddress().getPort()))) {
        socket.open();
        BenchService.Client client = new BenchService.Client(new TBinaryProtocol(socket));
        assertThat(client.get_last_sale("NO-LIMIT").getSymbol()).isEqualTo("NO-LIMIT");
      }
    }
  }
}
