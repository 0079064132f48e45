package io.thriftnio.it.python;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.HeaderScope;
import io.thriftnio.core.WireKind;
import io.thriftnio.it.Rows;
import io.thriftnio.pool.ThriftAsyncClientPool;
import io.thriftnio.testkit.conformance.BenchConnection;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ClientKinds;
import io.thriftnio.testkit.gen.BenchService;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * This library's THeader clients ({@code ClientOptions.wireKind(HEADER)}: the sync transport and
 * the pipelined channel, Netty and Grizzly, and {@code ThriftAsyncClientPool}'s stock {@code
 * AsyncClient}s) against Apache Thrift's own Python THeader server ({@code bench_server.py
 * --transport header}: a {@code TThreadedServer} with {@code THeaderProtocolFactory}): every {@code
 * BenchService} method, binary and compact, then an info header both ways (the request's {@code
 * x-echo} read by the Python handler, the reply's {@code x-echoed} read from a {@link HeaderScope}:
 * the sync transport runs no interceptors).
 *
 * <p>One Python server for the class: it answers each call in the inner protocol it came in.
 * Skipped without Python 3 unless {@code thriftnio.requirePython=true} or {@code
 * THRIFTNIO_REQUIRE_PYTHON=1}, see {@link PythonPeer}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PythonTHeaderServerInteropTest {

  private static PythonServer server;

  @BeforeAll
  @Timeout(value = 8, unit = TimeUnit.MINUTES) // the first build creates the venv and runs pip
  static void startPythonServer() throws Exception {
    server = PythonPeer.get().startServer("binary", "header");
  }

  @AfterAll
  static void stopPythonServer() {
    if (server != null) {
      server.close();
      assertThat(server.exitCode()).as("python server stderr:%n%s", server.stderr()).isZero();
    }
  }

  static Stream<Arguments> clientsAndProtocols() {
    List<Arguments> cells = new ArrayList<>();
    for (String protocol : List.of("binary", "compact")) {
      // clients()' order.
      List<String> names =
          List.of("netty-sync", "netty-async", "grizzly-sync", "grizzly-async", "pooled-async");
      for (int i = 0; i < names.size(); i++) {
        cells.add(Arguments.of(Named.of(names.get(i), i), protocol));
      }
    }
    return cells.stream();
  }

  /** Rows.directClients over THeader, then the async pool of stock AsyncClients over THeader. */
  private static List<ClientKind> clients(ClientOptions options) {
    List<ClientKind> clients = new ArrayList<>(Rows.directClients("header", options));
    clients.add(
        ClientKinds.asyncIface(
            "pooled-async-header",
            (address, protocol) -> {
              ThriftAsyncClientPool<BenchService.AsyncClient> pool =
                  ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                      .protocol(protocol)
                      .endpoints(address)
                      .options(options)
                      .build();
              return new ClientKinds.Opened<>(pool.asyncIface(BenchService.AsyncIface.class), pool);
            }));
    return clients;
  }

  private static TProtocolFactory factory(String protocol) {
    return protocol.equals("binary")
        ? new TBinaryProtocol.Factory()
        : new TCompactProtocol.Factory();
  }

  @ParameterizedTest(name = "{0} THeader ({1}) -> python THeader server")
  @MethodSource("clientsAndProtocols")
  void ourTHeaderClientGetsBenchSemanticsAndHeadersBothWays(int index, String protocol)
      throws Exception {
    ClientOptions options =
        ClientOptions.builder()
            .wireKind(WireKind.HEADER)
            .callTimeout(Duration.ofSeconds(30))
            .build();
    ClientKind client = clients(options).get(index);
    try (BenchConnection connection = client.connect(server.address(), factory(protocol))) {
      BenchChecks.checkEveryMethod(connection.iface());

      String echo = "from java " + client.name();
      try (HeaderScope headers = HeaderScope.open(Map.of("x-echo", echo))) {
        ByteBuffer echoed = connection.iface().echo(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        assertThat(StandardCharsets.UTF_8.decode(echoed).toString())
            .as("%s: the Python handler's answer to x-echo", client.name())
            .isEqualTo(echo);
        assertThat(headers.responseHeaders())
            .as("%s: the reply's info headers", client.name())
            .containsEntry("x-echoed", echo);
      }
    }
    assertThat(server.isAlive()).as("python server stderr:%n%s", server.stderr()).isTrue();
  }
}
