package io.thriftnio.it.python;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ClientCallContext;
import io.thriftnio.core.ClientCallOutcome;
import io.thriftnio.core.ClientInterceptor;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.it.Rows;
import io.thriftnio.testkit.conformance.BenchConnection;
import io.thriftnio.testkit.conformance.ClientKind;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
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
 * the pipelined channel, Netty and Grizzly) against Apache Thrift's own Python THeader server
 * ({@code bench_server.py --transport header}: a {@code TThreadedServer} with {@code
 * THeaderProtocolFactory}): every {@code BenchService} method, binary and compact, then an info
 * header both ways (the request's {@code x-echo} read by the Python handler, the reply's {@code
 * x-echoed} read by a client interceptor).
 *
 * <p>One Python server for the class: it answers each call in the inner protocol it came in.
 * Skipped without Python 3 unless {@code thriftnio.requirePython=true} or {@code
 * THRIFTNIO_REQUIRE_PYTHON=1}, see {@link PythonPeer}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PythonTHeaderServerInteropTest {

  /** Sends {@code x-echo} when asked and keeps the last reply's headers. */
  private static final class EchoHeaders implements ClientInterceptor {
    volatile String echo;
    final AtomicReference<Map<String, String>> replied = new AtomicReference<>();

    @Override
    public void beforeCall(ClientCallContext context) {
      String value = echo;
      if (value != null) {
        context.setRequestHeader("x-echo", value);
      }
    }

    @Override
    public void afterCall(
        ClientCallContext context, ClientCallOutcome outcome, Throwable failure, long nanos) {
      replied.set(context.responseHeaders());
    }
  }

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
      // Rows.directClients' order; each case opens its own, so the interceptor is the case's own.
      List<String> names = List.of("netty-sync", "netty-async", "grizzly-sync", "grizzly-async");
      for (int i = 0; i < names.size(); i++) {
        cells.add(Arguments.of(Named.of(names.get(i), i), protocol));
      }
    }
    return cells.stream();
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
    EchoHeaders headers = new EchoHeaders();
    ClientOptions options =
        ClientOptions.builder()
            .wireKind(WireKind.HEADER)
            .callTimeout(Duration.ofSeconds(30))
            .interceptors(List.of(headers))
            .build();
    ClientKind client = Rows.directClients("header", options).get(index);
    try (BenchConnection connection = client.connect(server.address(), factory(protocol))) {
      BenchChecks.checkEveryMethod(connection.iface());

      headers.echo = "from java " + client.name();
      ByteBuffer echoed = connection.iface().echo(ByteBuffer.wrap(new byte[] {1, 2, 3}));
      assertThat(StandardCharsets.UTF_8.decode(echoed).toString())
          .as("%s: the Python handler's answer to x-echo", client.name())
          .isEqualTo(headers.echo);
      assertThat(headers.replied.get())
          .as("%s: the reply's info headers", client.name())
          .containsEntry("x-echoed", headers.echo);
    }
    assertThat(server.isAlive()).as("python server stderr:%n%s", server.stderr()).isTrue();
  }
}
