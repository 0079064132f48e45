package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.thriftnio.core.WireKind;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.TradeReport;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.transport.TTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Armeria peer: the {@code armeria} row ({@code THttpService} in Armeria 1.33.1) answers the
 * stock {@code THttpClient}, runs {@code http-40} in its own {@code serve} child, and is skipped
 * with the reason by the framed scenarios. The runs need the peer's jar, which {@code package}
 * builds (CI's {@code verify} does; this machine's CI sets {@code THRIFTNIO_REQUIRE_ARMERIA=1}, so
 * they must not skip there).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ArmeriaRowsTest {

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  /** Skips where the build has no peer jar, unless the environment requires it. */
  private static void assumeArmeriaBuilt() {
    if (!ArmeriaPeerJar.built() && "1".equals(System.getenv("THRIFTNIO_REQUIRE_ARMERIA"))) {
      fail("THRIFTNIO_REQUIRE_ARMERIA=1, but " + ArmeriaPeerJar.NOT_BUILT);
    }
    assumeTrue(ArmeriaPeerJar.built(), ArmeriaPeerJar.NOT_BUILT);
  }

  private static ServerSpec spec(EnumSet<WireKind> transports) {
    return new ServerSpec(
        MatrixRunner.LOOPBACK, 0, "compact", null, 1, false, 4, null, false, transports, "/");
  }

  @Test
  void theArmeriaRowAnswersTheStockTHttpClientsEchoByteForByte() throws Exception {
    assumeArmeriaBuilt();
    byte[] payload = new byte[300];
    new Random(29).nextBytes(payload);
    try (RunningServer server = Rows.standard().server(ArmeriaRows.NAME).start(spec(httpOnly()));
        TTransport http = StockRows.openHttpClient(server.address(), "/", Duration.ofSeconds(10))) {
      BenchService.Client client = new BenchService.Client(new TCompactProtocol(http));

      ByteBuffer echoed = client.echo(ByteBuffer.wrap(payload.clone()));
      byte[] got = new byte[echoed.remaining()];
      echoed.get(got);
      assertThat(got).isEqualTo(payload);
      // The testkit's reference handler serves the other methods too, errors included.
      assertThat(client.get_last_sale("ARM")).isEqualTo(new TradeReport("ARM", 25.50, 100, 1));
      assertThatThrownBy(() -> client.fail(7, "seven"))
          .isInstanceOf(BenchError.class)
          .isEqualTo(new BenchError(7, "seven"));
    }
  }

  @Test
  void theArmeriaRowRefusesFramedPeers() {
    assertThatThrownBy(
            () ->
                Rows.standard()
                    .server(ArmeriaRows.NAME)
                    .start(spec(EnumSet.of(WireKind.FRAMED, WireKind.HTTP))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "armeria serves http peers only: transports [FRAMED, HTTP] (expected: http;"
                + " Armeria's THttpService answers HTTP alone)");
  }

  @Test
  void efficiencyRunsHttp40AgainstArmeriaInItsOwnProcessAndSkipsTheFramedScenarios()
      throws Exception {
    assumeArmeriaBuilt();
    int status =
        BenchMain.execute(
            new String[] {
              "efficiency",
              "--servers",
              ArmeriaRows.NAME,
              "--scenarios",
              "seq-1,http-40",
              "--rounds",
              "1",
              "--warmup",
              "200ms",
              "--warmup-calls",
              "100",
              "--duration",
              "500ms",
              "--no-pin",
              "--out",
              dir.toString()
            },
            new PrintWriter(out, true),
            new PrintWriter(err, true));

    assertThat(status).as(err.toString()).isZero();
    assertThat(err.toString())
        .contains(
            "armeria seq-1 (tsocket x1): skipped: armeria serves [http] peers only; tsocket"
                + " speaks framed");
    List<String> csv = Files.readAllLines(dir.resolve("results.csv"), StandardCharsets.UTF_8);
    List<String> header = List.of(csv.get(0).split(","));
    String[] row =
        csv.stream()
            .filter(l -> l.startsWith("armeria,http-40,thttpclient,40,1,"))
            .findFirst()
            .orElseThrow(() -> new AssertionError(csv + "\n" + err))
            .split(",", -1);
    assertThat(Double.parseDouble(row[header.indexOf("calls_per_sec")])).isPositive();
    assertThat(Double.parseDouble(row[header.indexOf("server_us_per_call")])).isPositive();
    assertThat(row[header.indexOf("server_alloc_bytes_per_call")]).isNotEmpty();
    // errors counts failed calls and replies whose payload was not the one sent.
    assertThat(row[header.indexOf("errors")]).isEqualTo("0");
  }

  @Test
  void armeriaIsAPeerNamedOnlyThatServesHttpAlone() {
    Rows rows = Rows.standard();
    assertThat(rows.expandServers(List.of("peers"))).contains(ArmeriaRows.NAME);
    assertThat(rows.expandServers(List.of("all"))).doesNotContain(ArmeriaRows.NAME);
    assertThat(rows.expandServers(List.of(ArmeriaRows.NAME))).containsExactly(ArmeriaRows.NAME);
    ServerRow row = rows.server(ArmeriaRows.NAME);
    assertThat(row.wireKinds()).containsExactly(WireKind.HTTP);
    assertThat(MatrixRunner.wireKinds(row, List.of(rows.client("tsocket"))))
        .containsExactly(WireKind.HTTP);
    assertThat(row.openLoopClient()).isEqualTo("netty-async-http");
  }

  private static EnumSet<WireKind> httpOnly() {
    return EnumSet.of(WireKind.HTTP);
  }
}
