package io.thriftnio.it.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.grizzly.GrizzlyClientIo;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.conformance.BenchConnection;
import io.thriftnio.testkit.conformance.ClientKind;
import io.thriftnio.testkit.conformance.ClientKinds;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.server.TServlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Interop: this library's HTTP clients (the sync transport and the channel, on Netty and on
 * Grizzly) against stock libthrift's {@code TServlet} in embedded Jetty 12 (ee10), binary and
 * compact: every method of {@code BenchService}, a oneway call, a declared exception and a 1 MB
 * payload, over one keep-alive connection per client.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HttpClientsAgainstTServletTest {

  private static final String PATH = "/thrift";
  private static final int ONE_MB = 1024 * 1024;

  private static final List<Server> JETTIES = new ArrayList<>();
  private static final List<AutoCloseable> RESOURCES = new ArrayList<>();
  private static InetSocketAddress binaryServlet;
  private static InetSocketAddress compactServlet;
  private static BenchHandler binaryHandler;
  private static BenchHandler compactHandler;
  private static ClientIo netty;
  private static ClientIo grizzly;

  @BeforeAll
  static void start() throws Exception {
    binaryHandler = new BenchHandler();
    compactHandler = new BenchHandler();
    binaryServlet = jetty(new TBinaryProtocol.Factory(), binaryHandler);
    compactServlet = jetty(new TCompactProtocol.Factory(), compactHandler);
    netty = NettyClientIo.create(2);
    grizzly = GrizzlyClientIo.create(2);
    RESOURCES.add(netty);
    RESOURCES.add(grizzly);
  }

  @AfterAll
  static void stop() throws Exception {
    for (AutoCloseable r : RESOURCES) {
      r.close();
    }
    for (Server s : JETTIES) {
      s.stop();
    }
  }

  /** Jetty on a loopback port 0 serving {@code TServlet} on {@value #PATH}. */
  private static InetSocketAddress jetty(TProtocolFactory protocol, BenchHandler handler)
      throws Exception {
    Server jetty = new Server();
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost(InetAddress.getLoopbackAddress().getHostAddress());
    connector.setPort(0);
    jetty.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    context.addServlet(
        new ServletHolder(new TServlet(new BenchService.Processor<>(handler), protocol)), PATH);
    jetty.setHandler(context);
    jetty.start();
    JETTIES.add(jetty);
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), connector.getLocalPort());
  }

  static Stream<Arguments> cells() {
    ClientOptions http =
        ClientOptions.builder()
            .wireKind(WireKind.HTTP)
            .httpPath(PATH)
            .maxFrameSize(4 * ONE_MB)
            .build();
    List<ClientKind> kinds =
        List.of(
            ClientKinds.syncTransport("netty-sync-http", a -> netty.openTransport(a, http)),
            ClientKinds.channel("netty-async-http", a -> netty.openChannel(a, http)),
            ClientKinds.syncTransport("grizzly-sync-http", a -> grizzly.openTransport(a, http)),
            ClientKinds.channel("grizzly-async-http", a -> grizzly.openChannel(a, http)));
    List<Arguments> cells = new ArrayList<>();
    for (ClientKind kind : kinds) {
      cells.add(Arguments.of("binary", kind));
      cells.add(Arguments.of("compact", kind));
    }
    return cells.stream();
  }

  @ParameterizedTest(name = "{1} -> TServlet ({0})")
  @MethodSource("cells")
  void everyMethodOnewayExceptionAndOneMegabyte(String protocolName, ClientKind kind)
      throws Exception {
    boolean binary = protocolName.equals("binary");
    TProtocolFactory protocol =
        binary ? new TBinaryProtocol.Factory() : new TCompactProtocol.Factory();
    InetSocketAddress servlet = binary ? binaryServlet : compactServlet;
    BenchHandler handler = binary ? binaryHandler : compactHandler;
    try (BenchConnection connection = kind.connect(servlet, protocol)) {
      BenchService.Iface client = connection.iface();
      ByteBuffer small = Payloads.of(Payloads.SMALL, 1);
      assertThat(Payloads.check(client.echo(small), Payloads.SMALL, 1)).isTrue();
      assertThat(client.get_last_sale("JETTY").getSymbol()).isEqualTo("JETTY");
      assertThat(client.db_work(3))
          .containsExactly(BenchHandler.row(0), BenchHandler.row(1), BenchHandler.row(2));
      assertThat(client.get_nested(3)).isEqualTo(BenchHandler.nested(3));
      client.sleep(5);
      assertThatThrownBy(() -> client.fail(42, "declared"))
          .isInstanceOfSatisfying(
              BenchError.class,
              e -> {
                assertThat(e.getCode()).isEqualTo(42);
                assertThat(e.getMessage()).isEqualTo("declared");
              });
      long firedBefore = client.fired();
      client.fire(Payloads.of(100, 2)); // oneway: TServlet answers it with an empty 200
      // The next call reads its own reply, not the oneway's empty answer, and sees it counted.
      assertThat(client.fired()).isGreaterThanOrEqualTo(firedBefore + 1);
      ByteBuffer big = Payloads.of(ONE_MB, 3);
      assertThat(Payloads.check(client.echo(big), ONE_MB, 3)).isTrue();
      assertThat(handler.fired()).isGreaterThanOrEqualTo(1);
    }
  }
}
