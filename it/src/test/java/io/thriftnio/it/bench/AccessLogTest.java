package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.testkit.gen.BenchService;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TTransport;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code serve --access-log}: one line per call, from the library rows' interceptor. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AccessLogTest {

  @ParameterizedTest
  @ValueSource(strings = {"netty/worker", "grizzly/same-thread"})
  void aRowWithTheAccessLogPrintsOneLinePerCall(String name) throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream original = System.err;
    System.setErr(new PrintStream(printed, true, StandardCharsets.UTF_8));
    try (RunningServer server =
        Rows.standard()
            .server(name)
            .start(
                new ServerSpec(
                    MatrixRunner.LOOPBACK, 0, "binary", null, 1, false, 16, null, true))) {
      InetSocketAddress address = server.address();
      try (TTransport socket = StockRows.openFramedSocket(address, Duration.ofSeconds(5))) {
        BenchService.Client client = new BenchService.Client(new TBinaryProtocol(socket));
        client.echo(ByteBuffer.wrap(new byte[] {1}));
        client.get_last_sale("LOG");
      }
    } finally {
      System.setErr(original);
    }
    assertThat(printed.toString(StandardCharsets.UTF_8).lines())
        .filteredOn(l -> l.endsWith(" us"))
        .hasSize(2)
        .anySatisfy(l -> assertThat(l).matches("/127\\.0\\.0\\.1:\\d+ echo SUCCESS \\d+ us"))
        .anySatisfy(
            l -> assertThat(l).matches("/127\\.0\\.0\\.1:\\d+ get_last_sale SUCCESS \\d+ us"));
  }
}
