package io.thriftnio.it.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.IntSupplier;

/**
 * The Drift peer: the server row {@code drift} (Drift 1.22's {@code drift-server} on its Netty
 * transport, serving an annotated equivalent of {@code BenchService}) and the client kind {@code
 * drift} (Drift's own client, {@code DriftClientFactory} on the same transport). Both are named
 * only, and {@code drift} belongs to the {@code peers} family.
 *
 * <p>Drift's classes need Java 21: {@code efficiency} starts the row's {@code serve} child on a JDK
 * &gt;= 21 ({@link PeerJdk}), and runs its load generator on one when a scenario's client is {@code
 * drift} and it pins the load generator. In a JVM older than 21 (in-process {@code matrix}, an
 * unpinned {@code efficiency}) both say why they cannot run.
 *
 * <p>Drift tells framed from unframed and binary from compact per connection, so the stock and the
 * library's framed clients call it in either protocol; it has no JSON. Its handler runs on the
 * event loop that read the call (Drift has no other mode); {@code --io-threads} sets those event
 * loops, one more thread accepts, {@code --workers} does not apply. It binds every address.
 */
final class DriftRows implements RowProvider {

  /** The server row's and the client kind's name. */
  static final String NAME = "drift";

  @Override
  public void register(Rows rows) {
    rows.server(new Row());
    rows.client(new Kind());
  }

  /**
   * The java that runs the load generator of {@code shapes}: a JDK &gt;= 21's where a shape's
   * client is {@code drift} and this JVM is older (and one is found), else this JVM's.
   */
  static String loadGeneratorJava(List<EfficiencyScenario> shapes) {
    boolean drift = shapes.stream().anyMatch(s -> s.client().equals(NAME));
    if (drift && Runtime.version().feature() < DriftPeerJar.JAVA) {
      return PeerJdk.java(DriftPeerJar.JAVA).orElse(ServeProcess.javaCommand());
    }
    return ServeProcess.javaCommand();
  }

  private static String protocolMismatch(String who, String protocol) {
    return protocol.toLowerCase(Locale.ROOT).equals("json")
        ? who + " speaks binary and compact only (Drift has no JSON protocol)"
        : null;
  }

  private static final class Row implements ServerRow {
    @Override
    public String name() {
      return NAME;
    }

    @Override
    public boolean listed() {
      return false;
    }

    @Override
    public String childJava() throws IOException {
      if (!DriftPeerJar.built()) {
        throw new IOException(DriftPeerJar.NOT_BUILT);
      }
      return PeerJdk.java(DriftPeerJar.JAVA)
          .orElseThrow(() -> new IOException(PeerJdk.missing(DriftPeerJar.JAVA, NAME)));
    }

    @Override
    public String cannotServe(CellSpec cell) {
      if (!DriftPeerJar.built()) {
        return DriftPeerJar.NOT_BUILT;
      }
      Workload w = cell.workload();
      if (w.echoPayload() == null && !w.label().startsWith("sleep(")) {
        return "drift serves echo and sleep only, not " + w.label();
      }
      return protocolMismatch(NAME, cell.protocol());
    }

    @Override
    public RunningServer start(ServerSpec spec) throws Exception {
      spec.requireFramedOnly(NAME);
      if (spec.asyncHandler()) {
        throw new IllegalStateException(
            "drift serves its own annotated handler: --async-handler does not apply");
      }
      String why = DriftPeerJar.cannotLoadHere();
      if (why != null) {
        throw new IllegalStateException(
            why
                + "; run it with "
                + PeerJdk.java(DriftPeerJar.JAVA).orElse("a JDK >= " + DriftPeerJar.JAVA)
                + " (efficiency starts its drift child there)");
      }
      AutoCloseable server =
          DriftPeerJar.serve(
              spec.port(), spec.ioThreadsOr(Runtime.getRuntime().availableProcessors()));
      InetSocketAddress address =
          new InetSocketAddress(spec.host(), ((IntSupplier) server).getAsInt());
      return RunningServer.of(address, "Drift's server", server);
    }
  }

  private static final class Kind implements ClientKindRow {
    @Override
    public String name() {
      return NAME;
    }

    @Override
    public boolean listed() {
      return false;
    }

    @Override
    public String cannotRun(CellSpec cell) {
      String why = DriftPeerJar.cannotLoadHere();
      if (why != null) {
        if (!DriftPeerJar.built()) {
          return why;
        }
        return "the drift client kind runs in the load generator, and "
            + why
            + PeerJdk.java(DriftPeerJar.JAVA)
                .map(
                    j ->
                        "; efficiency runs its load generator on "
                            + j
                            + " when it pins it (taskset), else run the bench with that java")
                .orElse("; " + PeerJdk.missing(DriftPeerJar.JAVA, "it"));
      }
      if (cell.workload().echoPayload() == null) {
        return "the drift client kind calls echo only, not " + cell.workload().label();
      }
      if (cell.tls() != null) {
        return "the drift client kind speaks plain TCP only";
      }
      if (cell.inFlight() > 1) {
        return "the drift client kind makes blocking calls, one in flight per connection (asked: "
            + cell.inFlight()
            + ")";
      }
      return protocolMismatch("the drift client kind", cell.protocol());
    }

    @Override
    public ClientLoad open(CellSpec cell, InetSocketAddress address) throws Exception {
      ByteBuffer payload = cell.workload().echoPayload();
      byte[] bytes = new byte[payload.remaining()];
      payload.get(bytes);
      Workload workload = cell.workload();
      List<Function<byte[], byte[]>> calls = new ArrayList<>();
      AutoCloseable clients =
          DriftPeerJar.clients(
              address.getHostString(),
              address.getPort(),
              cell.protocol(),
              cell.connections(),
              cell.callTimeout().toMillis(),
              calls);
      List<ClientLoad.Lane> lanes = new ArrayList<>();
      for (Function<byte[], byte[]> call : calls) {
        lanes.add((ClientLoad.SyncLane) () -> workload.check(ByteBuffer.wrap(call.apply(bytes))));
      }
      return new ClientLoad() {
        private boolean closed;

        @Override
        public List<Lane> lanes() {
          return lanes;
        }

        @Override
        public synchronized void close() {
          if (closed) {
            return;
          }
          closed = true;
          try {
            clients.close();
          } catch (Exception e) {
            throw new IllegalStateException("cannot close the drift clients of " + address, e);
          }
        }
      };
    }
  }
}
