package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.ssl.OpenSsl;
import io.thriftnio.testkit.gen.BenchService;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TTransport;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The TLS rows: in process, each serves TLS clients of the bench's kinds trusting the run's CA, and
 * turns away a plain-TCP client; they are named only, and say why when started without
 * certificates.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsRowsTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"netty-tls/same-thread", "netty-openssl/worker", "grizzly-tls/worker"})
  void aTlsRowServesTlsClientsAndRefusesPlainOnes(String name) throws Exception {
    if (name.startsWith("netty-openssl/")) {
      assumeOpenSsl();
    }
    Rows rows = Rows.standard();
    ServerRow row = rows.server(name);
    assertThat(row).as(name).isNotNull();
    assertThat(row.tls()).isTrue();
    assertThat(rows.serverNames()).as("rows in 'all'").doesNotContain(name);
    BenchTls tls = BenchTls.generate(dir);

    try (RunningServer server =
        row.start(new ServerSpec(MatrixRunner.LOOPBACK, 0, "binary", null, 1, false, 16, tls))) {
      for (String client : List.of("tsocket", "netty-async", "grizzly-sync")) {
        CellSpec cell =
            new CellSpec(
                name,
                client,
                Workload.echo(300),
                "binary",
                2,
                1,
                0,
                false,
                Duration.ZERO,
                Duration.ofSeconds(10),
                100,
                TIMEOUT,
                tls.clientTls());
        CellResult r = LoadEngine.run(cell, rows.client(client).open(cell, server.address()));
        assertThat(r.errors()).as(client).isZero();
        assertThat(r.checkFailures()).as(client).isZero();
        assertThat(r.calls()).as(client).isGreaterThanOrEqualTo(100);
      }

      TTransport plain = StockRows.openFramedSocket(server.address(), TIMEOUT);
      try {
        BenchService.Client client = new BenchService.Client(new TBinaryProtocol(plain));
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> client.echo(ByteBuffer.wrap(new byte[300])))
            .isInstanceOf(TException.class);
        // The server closes it on the failed handshake: no wait for the read timeout.
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(TIMEOUT);
      } finally {
        plain.close();
      }
      assertThat(server.stats().tlsFailures()).isEqualTo(1);
    }
  }

  /**
   * Skips unless netty-tcnative loads here (the bench jar carries it for Linux x86_64 only); as the
   * netty module's native tests do, {@code THRIFTNIO_REQUIRE_NATIVE=1} makes a missing OpenSSL a
   * failure.
   */
  private static void assumeOpenSsl() {
    if (OpenSsl.isAvailable()) {
      return;
    }
    String reason = "OpenSSL is not available: " + OpenSsl.unavailabilityCause();
    String env = System.getenv("THRIFTNIO_REQUIRE_NATIVE");
    if ("1".equals(env)
        || "true".equalsIgnoreCase(env)
        || Boolean.getBoolean("thriftnio.requireNative")) {
      Assertions.fail(reason + " (required by THRIFTNIO_REQUIRE_NATIVE=1)");
    }
    System.err.println("SKIPPED: " + reason);
    Assumptions.abort(reason);
  }

  @Test
  void serveWritesAFreshCaIntoAnEmptyTlsDirAndAClientTrustingItCalls() throws Exception {
    Path tlsDir = dir.resolve("serve-tls");
    try (ServeProcess serve =
        ServeProcess.start(
            List.of(), List.of("--server", "netty-tls/worker", "--tls-dir", tlsDir.toString()))) {
      // What matrix --target ... --tls-dir does: trust the CA that serve wrote.
      BenchTls tls = BenchTls.load(tlsDir);
      CellSpec cell =
          new CellSpec(
              "netty-tls/worker",
              "tsocket",
              Workload.echo(300),
              "binary",
              1,
              1,
              0,
              false,
              Duration.ZERO,
              Duration.ofSeconds(10),
              50,
              TIMEOUT,
              tls.clientTls());
      CellResult r =
          LoadEngine.run(cell, Rows.standard().client("tsocket").open(cell, serve.address()));
      assertThat(r.errors()).isZero();
      assertThat(r.calls()).isGreaterThanOrEqualTo(50);
    }
  }

  @Test
  void aTlsRowStartedWithoutCertificatesSaysWhatItNeeds() {
    ServerRow row = Rows.standard().server("netty-tls/worker");
    assertThatThrownBy(
            () -> row.start(new ServerSpec(MatrixRunner.LOOPBACK, 0, "binary", null, 1, false, 16)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "netty-tls/worker serves TLS: no certificates (expected: serve --tls-dir DIR,"
                + " or none for a fresh CA)");
  }

  @Test
  void theDirectoryHoldsPemFilesThatLoadAgain() throws Exception {
    BenchTls.generate(dir);
    assertThat(Files.readString(dir.resolve(BenchTls.CA_FILE)))
        .startsWith("-----BEGIN CERTIFICATE-----");
    assertThat(Files.readString(dir.resolve(BenchTls.KEY_FILE)))
        .contains("-----BEGIN PRIVATE KEY-----");
    BenchTls loaded = BenchTls.load(dir);
    assertThat(loaded.caFile()).isEqualTo(dir.resolve(BenchTls.CA_FILE));
    assertThat(loaded.clientTls().hostnameVerification()).isTrue();
  }

  @Test
  void aMissingKeyFileNamesTheFile() throws Exception {
    BenchTls.generate(dir);
    Files.delete(dir.resolve(BenchTls.KEY_FILE));
    assertThatThrownBy(() -> BenchTls.load(dir))
        .hasMessageContaining(dir.resolve(BenchTls.KEY_FILE).toString());
  }
}
