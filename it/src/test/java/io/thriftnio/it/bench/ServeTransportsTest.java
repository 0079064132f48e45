package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.WireKind;
import io.thriftnio.testkit.gen.BenchService;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.transport.THttpClient;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code serve --transports}: library rows serve framed and unframed peers on one port. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServeTransportsTest {

  private static ServerSpec spec(EnumSet<WireKind> transports) {
    return new ServerSpec(
        MatrixRunner.LOOPBACK, 0, "compact", null, 1, false, 16, null, false, transports);
  }

  private static String lastSale(InetSocketAddress a, boolean framed, String symbol)
      throws Exception {
    TTransport t = new TSocket(a.getHostString(), a.getPort(), 10_000);
    if (framed) {
      t = new TFramedTransport(t);
    }
    try (TTransport open = t) {
      open.open();
      return new BenchService.Client(new TCompactProtocol(open)).get_last_sale(symbol).getSymbol();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"netty/worker", "grizzly/same-thread"})
  void aLibraryRowServesFramedAndUnframedPeersOnOnePort(String name) throws Exception {
    try (RunningServer server =
        Rows.standard().server(name).start(spec(EnumSet.allOf(WireKind.class)))) {
      assertThat(lastSale(server.address(), false, "UNFRAMED")).isEqualTo("UNFRAMED");
      assertThat(lastSale(server.address(), true, "FRAMED")).isEqualTo("FRAMED");
    }
  }

  private static String lastSaleOverHttp(InetSocketAddress a, String path, String symbol)
      throws Exception {
    THttpClient http = new THttpClient("http://" + a.getHostString() + ":" + a.getPort() + path);
    http.setConnectTimeout(10_000);
    http.setReadTimeout(10_000);
    try (TTransport open = http) {
      return new BenchService.Client(new TCompactProtocol(open)).get_last_sale(symbol).getSymbol();
    }
  }

  @Test
  void serveTakesTheHttpPathItsHttpPeersPostTo() throws Exception {
    try (ServeProcess serve =
        ServeProcess.start(
            List.of(),
            List.of(
                "--server",
                "netty/worker",
                "--protocol",
                "compact",
                "--io-threads",
                "1",
                "--workers",
                "2",
                "--transports",
                "framed,http",
                "--http-path",
                "/thrift"))) {
      assertThat(lastSaleOverHttp(serve.address(), "/thrift", "PATH")).isEqualTo("PATH");
      assertThatThrownBy(() -> lastSaleOverHttp(serve.address(), "/", "ROOT"))
          .isInstanceOf(TTransportException.class)
          .hasMessageContaining("404");
      assertThat(lastSale(serve.address(), true, "FRAMED")).isEqualTo("FRAMED");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"thrift", "/a b", "/x?y=1"})
  void serveRefusesAnHttpPathTheServerWouldRefuse(String path) {
    StringWriter err = new StringWriter();
    int code =
        BenchMain.execute(
            new String[] {
              "serve",
              "--server",
              "netty",
              "--port",
              "0",
              "--transports",
              "http",
              "--http-path",
              path
            },
            new PrintWriter(new StringWriter(), true),
            new PrintWriter(err, true));
    assertThat(code).isEqualTo(2);
    assertThat(err.toString())
        .contains(
            "http-path: '"
                + path
                + "' (expected: an absolute path, starting with /, without query or spaces)");
  }

  @Test
  void aStockRowRefusesUnframed() {
    assertThatThrownBy(
            () ->
                Rows.standard()
                    .server("thrift-threaded-selector")
                    .start(spec(EnumSet.allOf(WireKind.class))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "thrift-threaded-selector serves framed peers only: transports [FRAMED, UNFRAMED,"
                + " HTTP, HEADER, SASL] (expected: framed; the netty and grizzly rows take"
                + " unframed, http, header and sasl too)");
  }

  @Test
  void parsesTheOptionAndRefusesUnknownNames() {
    assertThat(ServeCommand.wireKinds(List.of("unframed", "FRAMED")))
        .containsExactly(WireKind.FRAMED, WireKind.UNFRAMED);
    assertThat(ServeCommand.wireKinds(List.of("unframed"))).containsExactly(WireKind.UNFRAMED);
    assertThat(ServeCommand.wireKinds(List.of("http", "framed")))
        .containsExactly(WireKind.FRAMED, WireKind.HTTP);
    StringWriter err = new StringWriter();
    int code =
        BenchMain.execute(
            new String[] {
              "serve", "--server", "netty", "--port", "0", "--transports", "framed,gopher"
            },
            new PrintWriter(new StringWriter(), true),
            new PrintWriter(err, true));
    assertThat(code).isEqualTo(2);
    assertThat(err.toString())
        .contains(
            "transports: gopher (expected: framed, unframed, http, header, sasl, comma-separated)");
  }
}
