package io.thriftnio.it.python;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.it.Rows;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.conformance.BenchConnection;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The official Python Thrift library against this library, both ways:
 *
 * <ul>
 *   <li>{@code bench_client.py} (every method including oneway and the declared exception, payloads
 *       up to 3 MiB, then 32 concurrent clients) against every server row with Python's framed
 *       transport, its default unframed {@code TBufferedTransport}, and its {@code THttpClient} (on
 *       a port that takes all three), binary and compact spread so that every row and every
 *       transport meets both;
 *   <li>this library's Netty and Grizzly sync and async clients and both pools against a Python
 *       {@code TThreadedServer} running {@code bench_server.py}.
 * </ul>
 *
 * Skipped without Python 3 unless {@code thriftnio.requirePython=true} or {@code
 * THRIFTNIO_REQUIRE_PYTHON=1} (as {@code .ci/run} sets), see {@link PythonPeer}.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PythonPeerInteropTest {

  private static final int CONCURRENT_CLIENTS = 32;

  @BeforeAll
  @Timeout(value = 8, unit = TimeUnit.MINUTES) // the first build creates the venv and runs pip
  static void setUpPython() throws InterruptedException {
    PythonPeer.prepare();
  }

  /**
   * {@code row}'s server builder with the overload shedding off. Python's clients answer a "not
   * run" reply with a failed check, as any stock client would, where this library's pools send the
   * call again; and with the module's other test JVM busy beside them, 32 of them calling at once
   * have met a bounded {@code LEADER_FOLLOWER} gate that refused some echoes a turn ("no turn to
   * run within 1 ms"). Shedding has its own tests; the wire is what these check.
   */
  private static ServerBuilder<?> withoutShedding(Rows.Server row) {
    return row.builder().get().boundComputingCalls(false).queueTimeTarget(Duration.ZERO);
  }

  private static TProtocolFactory factory(String protocol) {
    return protocol.equals("binary")
        ? new TBinaryProtocol.Factory()
        : new TCompactProtocol.Factory();
  }

  private static final List<String> PROTOCOLS = List.of("binary", "compact");

  /**
   * Every server row once for {@code transport} (0 framed, 1 buffered, 2 HTTP), the protocols
   * alternating between rows and shifted by one per transport: each row meets both protocols and
   * each transport meets both, in half the cells of every row x protocol x transport. The protocol
   * is libthrift's on both sides and the transport is ours; a row that serves one protocol over one
   * transport serves it over the others.
   */
  private static Stream<Arguments> cells(int transport) {
    List<Rows.Server> servers =
        Stream.concat(Rows.NETTY_SERVERS.stream(), Rows.GRIZZLY_SERVERS.stream()).toList();
    List<Arguments> cells = new ArrayList<>();
    for (int i = 0; i < servers.size(); i++) {
      cells.add(Arguments.of(servers.get(i), PROTOCOLS.get((i + transport) % PROTOCOLS.size())));
    }
    return cells.stream();
  }

  static Stream<Arguments> framedCells() {
    return cells(0);
  }

  static Stream<Arguments> bufferedCells() {
    return cells(1);
  }

  static Stream<Arguments> httpCells() {
    return cells(2);
  }

  @ParameterizedTest(name = "python -> {0} ({1})")
  @MethodSource("framedCells")
  void pythonClientPassesEveryCheckAgainstOurServer(Rows.Server row, String protocol)
      throws Exception {
    PythonPeer python = PythonPeer.get();
    BenchHandler handler = new BenchHandler();
    try (ThriftServer server =
        withoutShedding(row)
            .processor(new BenchService.Processor<>(handler))
            .protocol(factory(protocol))
            .ioStrategy(row.strategy())
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build()
            .start()) {
      ClientRun run =
          python.runClient(
              "127.0.0.1", server.localAddress().getPort(), protocol, CONCURRENT_CLIENTS);
      assertThat(run.passed()).as("bench_client.py failed:%n%s", run).isTrue();
      assertThat(run.summaryValue("checks_failed")).as("%s", run).contains("0");
      assertThat(run.summaryValue("concurrent_clients"))
          .as("%s", run)
          .contains(Integer.toString(CONCURRENT_CLIENTS));
      assertThat(run.summaryValue("fire_calls"))
          .as("%s", run)
          .contains(Long.toString(handler.fired()));
      assertThat(run.summaryValue("fire_bytes"))
          .as("%s", run)
          .contains(Long.toString(handler.firedBytes()));
      assertThat(server.stats().badFrames()).isZero();
    }
  }

  @ParameterizedTest(name = "python buffered -> {0} ({1})")
  @MethodSource("bufferedCells")
  void pythonsUnframedClientPassesEveryCheckAgainstAServerThatTakesBoth(
      Rows.Server row, String protocol) throws Exception {
    PythonPeer python = PythonPeer.get();
    BenchHandler handler = new BenchHandler();
    try (ThriftServer server =
        withoutShedding(row)
            .processor(new BenchService.Processor<>(handler))
            .protocol(factory(protocol))
            .ioStrategy(row.strategy())
            .wireKinds(WireKind.FRAMED, WireKind.UNFRAMED)
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build()
            .start()) {
      int port = server.localAddress().getPort();
      ClientRun buffered =
          python.runClient("127.0.0.1", port, protocol, "buffered", CONCURRENT_CLIENTS);
      assertThat(buffered.passed()).as("bench_client.py failed:%n%s", buffered).isTrue();
      assertThat(buffered.summaryValue("transport")).as("%s", buffered).contains("buffered");
      assertThat(buffered.summaryValue("checks_failed")).as("%s", buffered).contains("0");
      // The same port still serves framed Python clients.
      ClientRun framed = python.runClient("127.0.0.1", port, protocol, "framed", 4);
      assertThat(framed.passed()).as("bench_client.py failed:%n%s", framed).isTrue();
      assertThat(server.stats().badFrames()).isZero();
    }
  }

  @ParameterizedTest(name = "python http -> {0} ({1})")
  @MethodSource("httpCells")
  void pythonsHttpClientPassesEveryCheckOnAPortThatTakesEveryTransport(
      Rows.Server row, String protocol) throws Exception {
    PythonPeer python = PythonPeer.get();
    BenchHandler handler = new BenchHandler();
    try (ThriftServer server =
        withoutShedding(row)
            .processor(new BenchService.Processor<>(handler))
            .protocol(factory(protocol))
            .ioStrategy(row.strategy())
            .wireKinds(WireKind.FRAMED, WireKind.UNFRAMED, WireKind.HTTP)
            .httpPath("/thrift")
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build()
            .start()) {
      int port = server.localAddress().getPort();
      ClientRun http =
          python.runClient(
              "127.0.0.1", port, protocol, "http", CONCURRENT_CLIENTS, "--http-path", "/thrift");
      assertThat(http.passed()).as("bench_client.py failed:%n%s", http).isTrue();
      assertThat(http.summaryValue("transport")).as("%s", http).contains("http");
      assertThat(http.summaryValue("checks_failed")).as("%s", http).contains("0");
      assertThat(http.summaryValue("fire_calls"))
          .as("%s", http)
          .contains(Long.toString(handler.fired()));
      // Framed and unframed Python clients on the same port, after the HTTP ones.
      ClientRun framed = python.runClient("127.0.0.1", port, protocol, "framed", 4);
      assertThat(framed.passed()).as("bench_client.py failed:%n%s", framed).isTrue();
      ClientRun buffered = python.runClient("127.0.0.1", port, protocol, "buffered", 4);
      assertThat(buffered.passed()).as("bench_client.py failed:%n%s", buffered).isTrue();
      assertThat(server.stats().badFrames()).isZero();
    }
  }

  static Stream<Arguments> clientsAndProtocols() {
    List<Arguments> cells = new ArrayList<>();
    for (ClientKind client :
        List.of(
            Rows.NETTY_SYNC,
            Rows.NETTY_ASYNC,
            Rows.GRIZZLY_SYNC,
            Rows.GRIZZLY_ASYNC,
            Rows.POOLED_SYNC,
            Rows.POOLED_ASYNC)) {
      for (String protocol : PROTOCOLS) {
        cells.add(Arguments.of(client, protocol));
      }
    }
    return cells.stream();
  }

  @ParameterizedTest(name = "{0} -> python ({1})")
  @MethodSource("clientsAndProtocols")
  void ourClientGetsBenchSemanticsFromPythonServer(ClientKind client, String protocol)
      throws Exception {
    PythonPeer python = PythonPeer.get();
    PythonServer server = python.startServer(protocol);
    try (BenchConnection connection = client.connect(server.address(), factory(protocol))) {
      BenchChecks.checkEveryMethod(connection.iface());
    } finally {
      server.close();
    }
    assertThat(server.exitCode()).as("python server stderr:%n%s", server.stderr()).isZero();
  }
}
