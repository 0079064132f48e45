package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.testkit.gen.BenchService;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TTransport;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The rows that measure the interceptor chain: named only, serving as their plain rows do, with an
 * empty list or one {@link CallTimer}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InterceptorRowsTest {

  @ParameterizedTest
  @CsvSource({
    "netty-empty-chain/same-thread, 0",
    "netty-one-interceptor/worker, 1",
    "grizzly-empty-chain/worker, 0",
    "grizzly-one-interceptor/leader-follower, 1"
  })
  void aRowServesWithTheInterceptorsItsNameSays(String name, int interceptors) throws Exception {
    Rows rows = Rows.standard();
    assertThat(rows.serverNames()).as("rows in 'all'").doesNotContain(name);
    ServerRow row = rows.server(name);
    assertThat(row).as(name).isNotNull();
    try (RunningServer server =
        row.start(new ServerSpec(MatrixRunner.LOOPBACK, 0, "binary", null, 1, false, 16))) {
      assertThat(server.config().interceptors()).hasSize(interceptors);
      if (interceptors == 1) {
        assertThat(server.config().interceptors().get(0)).isInstanceOf(CallTimer.class);
      }
      try (TTransport socket =
          StockRows.openFramedSocket(server.address(), Duration.ofSeconds(5))) {
        BenchService.Client client = new BenchService.Client(new TBinaryProtocol(socket));
        assertThat(client.echo(ByteBuffer.wrap(new byte[] {1, 2, 3})).remaining()).isEqualTo(3);
      }
      assertThat(server.stats().completedCalls()).isEqualTo(1);
    }
  }
}
