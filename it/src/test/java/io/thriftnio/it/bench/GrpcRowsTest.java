package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gRPC-java peer rows ({@code grpc/...}, {@code grpc-tls/...}) and the {@code grpc} client kind
 * in {@code efficiency} and {@code matrix}: each row answers the grpc client with the payload
 * intact in both shapes, plain and TLS; Thrift kinds and grpc rows skip each other with the reason.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class GrpcRowsTest {

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return BenchMain.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  /**
   * One run over both models, one plain and one TLS: each model and each transport meets the gRPC
   * client in both shapes (the rows differ by executor and by TLS, independently).
   */
  @Test
  void efficiencyRunsAPlainAndATlsRowWithTheGrpcClientInBothShapes() throws Exception {
    efficiencyRunsWithTheGrpcClient("grpc/direct", "grpc-tls/default");
  }

  private void efficiencyRunsWithTheGrpcClient(String... servers) throws Exception {
    int status =
        run(
            "efficiency",
            "--servers",
            String.join(",", servers),
            "--scenarios",
            "tsocket-40,async-8x32",
            "--rounds",
            "1",
            "--warmup",
            "0s",
            "--warmup-calls",
            "0",
            "--duration",
            "1s",
            "--no-pin",
            "--out",
            dir.toString());

    assertThat(status).as(err.toString()).isZero();
    assertThat(err.toString()).doesNotContain("skipped");
    List<String> csv = Files.readAllLines(dir.resolve("results.csv"), StandardCharsets.UTF_8);
    assertThat(csv).hasSize(1 + 2 * servers.length);
    for (String server : servers) {
      assertThat(out.toString())
          .contains("| " + server + " | tsocket-40 (grpc x40) |")
          .contains("| " + server + " | async-8x32 (grpc 8x32) |");
      for (String shape : List.of("tsocket-40,grpc,40,1,", "async-8x32,grpc,8,32,")) {
        String prefix = server + "," + shape;
        assertThat(csv).anySatisfy(l -> assertThat(l).startsWith(prefix));
        String line = csv.stream().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow();
        String[] f = line.split(",", -1);
        assertThat(Double.parseDouble(f[6])).as("calls/s of " + line).isPositive();
        // The errors column counts failed calls and replies whose bytes differ from the request.
        assertThat(f[17]).as("errors of " + line).isEqualTo("0");
      }
    }
  }

  @Test
  void grpcCallersEventLoopRunsTsocket40WithTheGrpcLoopKind() throws Exception {
    int status =
        run(
            "efficiency",
            "--servers",
            "grpc/direct",
            "--scenarios",
            "tsocket-40",
            "--grpc-callers",
            "event-loop",
            "--rounds",
            "1",
            "--warmup",
            "0s",
            "--warmup-calls",
            "0",
            "--duration",
            "1s",
            "--no-pin",
            "--out",
            dir.toString());

    assertThat(status).as(err.toString()).isZero();
    assertThat(out.toString()).contains("| grpc/direct | tsocket-40 (grpc-loop x40) |");
    List<String> csv = Files.readAllLines(dir.resolve("results.csv"), StandardCharsets.UTF_8);
    String line =
        csv.stream()
            .filter(l -> l.startsWith("grpc/direct,tsocket-40,grpc-loop,40,1,"))
            .findFirst()
            .orElseThrow(() -> new AssertionError(csv));
    String[] f = line.split(",", -1);
    assertThat(Double.parseDouble(f[6])).as("calls/s of " + line).isPositive();
    assertThat(f[17]).as("errors of " + line).isEqualTo("0");
  }

  @Test
  void grpcCallersTakesThreadsOrEventLoop() {
    assertThat(run("efficiency", "--grpc-callers", "fibers", "--no-pin")).isNotZero();
    assertThat(err.toString()).contains("grpc-callers: fibers (expected: threads or event-loop)");
  }

  @Test
  void thriftKindsSkipGrpcRowsAndTheGrpcKindSkipsThriftRows() throws Exception {
    int status =
        run(
            "matrix",
            "--servers",
            "grpc/direct,netty/same-thread",
            "--clients",
            "tsocket,grpc",
            "--sizes",
            "300",
            "--protocols",
            "compact",
            "--connections",
            "2",
            "--warmup",
            "100ms",
            "--duration",
            "300ms",
            "--io-threads",
            "1",
            "--out",
            dir.toString());

    assertThat(status).as(err.toString()).isZero();
    assertThat(out.toString())
        .contains("grpc/direct speaks grpc; tsocket calls thrift rows only")
        .contains("netty/same-thread speaks thrift; grpc calls grpc rows only")
        .contains("| grpc/direct | grpc | 300 | compact | 2 |")
        .contains("| netty/same-thread | tsocket | 300 | compact | 2 |");
    List<String> csv = Files.readAllLines(dir.resolve("results.csv"), StandardCharsets.UTF_8);
    assertThat(csv)
        .anySatisfy(l -> assertThat(l).startsWith("grpc/direct,grpc,300,compact,2,"))
        .noneSatisfy(l -> assertThat(l).startsWith("grpc/direct,tsocket,300,compact,2,1"));
  }

  @Test
  void efficiencySkipsTheThriftOnlyScenariosOnAGrpcRowWithTheReason() throws Exception {
    int status =
        run(
            "efficiency",
            "--servers",
            "grpc/direct",
            "--scenarios",
            "http-40",
            "--rounds",
            "1",
            "--warmup",
            "0s",
            "--warmup-calls",
            "0",
            "--duration",
            "200ms",
            "--no-pin",
            "--out",
            dir.toString());

    assertThat(status).as(err.toString()).isZero();
    assertThat(out.toString())
        .contains("grpc/direct http-40 (thttpclient x40): ")
        .contains("grpc/direct speaks grpc; thttpclient calls thrift rows only");
  }

  @Test
  void peerRowsAreNamedOnlyAndSelectedByPeersAndTheirFamilies() {
    Rows rows = Rows.standard();
    assertThat(rows.expandServers(List.of("peers")))
        .containsExactly("drift", "armeria", "grpc/direct", "grpc/default");
    assertThat(rows.expandServers(List.of("grpc"))).containsExactly("grpc/direct", "grpc/default");
    assertThat(rows.expandServers(List.of("grpc-tls")))
        .containsExactly("grpc-tls/direct", "grpc-tls/default");
    assertThat(rows.expandServers(List.of("all"))).noneMatch(n -> n.startsWith("grpc"));
    assertThat(rows.expandClients(List.of("all"))).doesNotContain("grpc", "grpc-loop");
    assertThat(rows.server("grpc-tls/default").tls()).isTrue();
    assertThat(rows.server("grpc/direct").tls()).isFalse();
  }

  @Test
  void efficiencyShapesRunOnGrpcRowsWithTheGrpcKind() {
    ServerRow grpc = Rows.standard().server("grpc/direct");
    ServerRow netty = Rows.standard().server("netty/worker");
    for (EfficiencyScenario shape :
        EfficiencyScenario.resolve(List.of("tsocket-40", "async-8x32", "seq-1"))) {
      EfficiencyScenario onGrpc = shape.on(grpc);
      assertThat(onGrpc.client()).as(shape.name()).isEqualTo("grpc");
      assertThat(onGrpc.connections()).isEqualTo(shape.connections());
      assertThat(onGrpc.inFlight()).isEqualTo(shape.inFlight());
      assertThat(shape.on(netty)).isEqualTo(shape);
      assertThat(shape.on(netty, true)).isEqualTo(shape);
      assertThat(shape.on(grpc, true).client())
          .as(shape.name())
          .isEqualTo(shape.inFlight() == 1 ? "grpc-loop" : "grpc");
    }
    EfficiencyScenario header =
        EfficiencyScenario.resolve(List.of("seq-1"), List.of("header")).get(0);
    assertThat(header.on(grpc)).isEqualTo(header);
  }

  /** The client checks the bytes: a server that answers with other bytes fails the check. */
  @Test
  void theGrpcClientRefusesAnEchoWhoseBytesDiffer() throws Exception {
    ServerServiceDefinition corrupting =
        ServerServiceDefinition.builder(GrpcEcho.SERVICE)
            .addMethod(
                GrpcEcho.ECHO,
                ServerCalls.asyncUnaryCall(
                    (byte[] request, io.grpc.stub.StreamObserver<byte[]> reply) -> {
                      byte[] changed = request.clone();
                      changed[changed.length / 2] ^= 1;
                      reply.onNext(changed);
                      reply.onCompleted();
                    }))
            .build();
    Server server =
        NettyServerBuilder.forAddress(new InetSocketAddress(MatrixRunner.LOOPBACK, 0))
            .addService(corrupting)
            .build()
            .start();
    try {
      CellSpec cell =
          new CellSpec(
              "grpc/direct",
              "grpc",
              Workload.echo(300),
              "compact",
              1,
              1,
              0,
              false,
              Duration.ZERO,
              Duration.ofSeconds(1),
              10,
              Duration.ofSeconds(10));
      InetSocketAddress address = new InetSocketAddress(MatrixRunner.LOOPBACK, server.getPort());
      assertThatThrownBy(() -> new GrpcClientKind("grpc", false).open(cell, address))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(address + " answered the first echo with other bytes than it was sent");
    } finally {
      server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void theGrpcKindCallsEchoOnly() {
    CellSpec sleep =
        new CellSpec(
            "grpc/direct",
            "grpc",
            Workload.sleep(1),
            "compact",
            1,
            1,
            0,
            false,
            Duration.ZERO,
            Duration.ofSeconds(1),
            10,
            Duration.ofSeconds(10));
    assertThat(new GrpcClientKind("grpc", false).cannotRun(sleep))
        .isEqualTo("grpc calls echo only (workload sleep(1))");
  }
}
