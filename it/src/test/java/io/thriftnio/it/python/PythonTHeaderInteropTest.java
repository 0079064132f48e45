package io.thriftnio.it.python;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.it.Rows;
import io.thriftnio.testkit.HeaderEchoHandler;
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
 * Apache Thrift's own Python {@code THeaderTransport} and {@code THeaderProtocol} ({@code
 * header_client.py}) against every server row that accepts {@link WireKind#HEADER}: Netty and
 * Grizzly, each strategy. Binary and compact, zlib off and on, the inner protocol switched call by
 * call on one connection, payloads up to 200 KiB checked byte for byte, and an info header read by
 * the handler ({@link HeaderEchoHandler}).
 *
 * <p>One server per row, shared by the cases of that row and closed after the class. Skipped
 * without Python 3 unless {@code thriftnio.requirePython=true} or {@code
 * THRIFTNIO_REQUIRE_PYTHON=1} (as {@code .ci/run} sets), see {@link PythonPeer}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PythonTHeaderInteropTest {

  /** Calls per connection: 4 connections (2 protocols x zlib off/on), then as many switching. */
  private static final int CALLS = 20;

  /** {@code header_client.py}'s checks for {@link #CALLS}: one per echo, one for the header. */
  private static final int CHECKS = 4 * CALLS + CALLS + 1;

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

  /** The row's server taking framed and THeader peers, started on first use. */
  private static ThriftServer server(Rows.Server row) throws Exception {
    synchronized (SERVERS) {
      ThriftServer server = SERVERS.get(row);
      if (server == null) {
        server =
            row.builder()
                .get()
                .processor(new BenchService.Processor<>(new HeaderEchoHandler()))
                .protocol(new TBinaryProtocol.Factory())
                .ioStrategy(row.strategy())
                .wireKinds(WireKind.FRAMED, WireKind.HEADER)
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .build()
                .start();
        SERVERS.put(row, server);
      }
      return server;
    }
  }

  @ParameterizedTest(name = "python THeader -> {0}")
  @MethodSource("servers")
  void pythonsHeaderClientPassesEveryCheck(Rows.Server row) throws Exception {
    PythonPeer python = PythonPeer.get();
    ThriftServer server = server(row);
    ClientRun run =
        python.runHeaderClient(
            "127.0.0.1", server.localAddress().getPort(), "--calls", Integer.toString(CALLS));
    assertThat(run.passed()).as("header_client.py failed:%n%s", run).isTrue();
    assertThat(run.summaryValue("failed")).as("%s", run).contains("0");
    assertThat(run.summaryValue("passed")).as("%s", run).contains(Integer.toString(CHECKS));
    assertThat(server.stats().badFrames()).isZero();
    assertThat(server.stats().failedCalls()).isZero();
  }

  /**
   * The handler's response header reaches Python as an info header of the reply. Needs the server
   * to write {@code ServerCallContext.setResponseHeader} into THeader replies.
   */
  @ParameterizedTest(name = "python reads response headers from {0}")
  @MethodSource("servers")
  void pythonReadsTheHandlersResponseHeader(Rows.Server row) throws Exception {
    PythonPeer python = PythonPeer.get();
    ThriftServer server = server(row);
    ClientRun run =
        python.runHeaderClient(
            "127.0.0.1",
            server.localAddress().getPort(),
            "--calls",
            "1",
            "--expect-response-header");
    assertThat(run.passed()).as("header_client.py failed:%n%s", run).isTrue();
    assertThat(run.summaryValue("failed")).as("%s", run).contains("0");
    assertThat(run.summaryValue("passed")).as("%s", run).contains("7"); // 4 + 1 + 1 + 1
  }
}
