package io.thriftnio.it.python;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.sasl.ServerSasl;
import io.thriftnio.it.Rows;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Apache Thrift's own Python {@code TSaslClientTransport} with pure-sasl's PLAIN ({@code
 * sasl_client.py}) against every server row that accepts {@link WireKind#SASL}: Netty and Grizzly,
 * each strategy. Echo calls up to 200 KiB checked byte for byte on one authenticated connection,
 * then a wrong password refused with the server's reason.
 *
 * <p>One server per row (PLAIN without TLS, allowed for the test), shared by the cases of that row
 * and closed after the class. Skipped without Python 3 unless {@code thriftnio.requirePython=true}
 * or {@code THRIFTNIO_REQUIRE_PYTHON=1}, see {@link PythonPeer}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PythonSaslInteropTest {

  private static final int CALLS = 8;
  private static final Map<String, String> USERS = Map.of("alice", "alice-secret");
  private static final Map<Rows.Server, ThriftServer> SERVERS = new LinkedHashMap<>();

  @BeforeAll
  @Timeout(value = 8, unit = TimeUnit.MINUTES) // the first build creates the venv and runs pip
  static void setUpPython() throws InterruptedException {
    PythonPeer.prepare();
  }

  @AfterAll
  static void closeServers() {
    synchronized (SERVERS) {
      SERVERS.values().forEach(ThriftServer::close);
      SERVERS.clear();
    }
  }

  static Stream<Rows.Server> servers() {
    return Stream.concat(Rows.NETTY_SERVERS.stream(), Rows.GRIZZLY_SERVERS.stream());
  }

  private static ThriftServer server(Rows.Server row) throws Exception {
    synchronized (SERVERS) {
      ThriftServer server = SERVERS.get(row);
      if (server == null) {
        server =
            row.builder()
                .get()
                .processor(new BenchService.Processor<>(new BenchHandler()))
                .protocol(new TBinaryProtocol.Factory())
                .ioStrategy(row.strategy())
                .wireKinds(WireKind.FRAMED, WireKind.SASL)
                .sasl(
                    ServerSasl.builder()
                        .plain((user, password) -> new String(password).equals(USERS.get(user)))
                        .plainWithoutTls(true)
                        .build())
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .build()
                .start();
        SERVERS.put(row, server);
      }
      return server;
    }
  }

  @ParameterizedTest(name = "python SASL PLAIN -> {0}")
  @MethodSource("servers")
  void pythonsSaslClientPassesEveryCheck(Rows.Server row) throws Exception {
    PythonPeer python = PythonPeer.get();
    ThriftServer server = server(row);
    long failuresBefore = server.stats().saslFailures();
    ClientRun run =
        python.runSaslClient(
            "127.0.0.1",
            server.localAddress().getPort(),
            "alice",
            USERS.get("alice"),
            "--calls",
            Integer.toString(CALLS),
            "--wrong-password");
    assertThat(run.passed()).as("sasl_client.py failed:%n%s", run).isTrue();
    assertThat(run.summaryValue("failed")).as("%s", run).contains("0");
    assertThat(run.summaryValue("passed")).as("%s", run).contains(Integer.toString(CALLS + 1));
    assertThat(server.stats().saslFailures() - failuresBefore).isEqualTo(1);
    assertThat(server.stats().badFrames()).isZero();
  }
}
