package io.thriftnio.it.bench;

import io.thriftnio.core.WireKind;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * The Armeria peer: the server row {@code armeria}, Armeria 1.33.1's {@code THttpService} ({@code
 * armeria-thrift0.18}) serving the testkit's {@code BenchService} over HTTP. Named only, and in the
 * {@code peers} family.
 *
 * <p>It serves {@link WireKind#HTTP} peers only, at {@link ServerSpec#httpPath()} ({@code /} by
 * default), in the run's protocol alone (a request's bare {@code application/x-thrift} is read in
 * it): {@code thttpclient} and the library's {@code -http} kinds call it; every framed kind skips
 * it with the reason, so in {@code efficiency} it runs {@code http-40} only. Its handler is the
 * testkit's {@code AsyncBenchHandler} (the reference semantics of every method), which Armeria runs
 * on the event loop that read the request, as the library's {@code SAME_THREAD} rows run theirs;
 * {@code --io-threads} sets those event loops (Armeria's boss thread accepts), {@code --workers}
 * does not apply. Armeria's classes are Java 8's, so the row runs on the bench's JVM, in a class
 * loader of its own ({@link ArmeriaPeerJar}). The peer runs Armeria on libthrift 0.25, not on its
 * 0.18.1: the checked-in generated code does not compile against 0.18 (module {@code
 * peer-armeria}'s POM says why and what that takes).
 */
final class ArmeriaRows implements RowProvider {

  /** The server row's name. */
  static final String NAME = "armeria";

  @Override
  public void register(Rows rows) {
    rows.server(new Row());
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
    public Set<WireKind> wireKinds() {
      return EnumSet.of(WireKind.HTTP);
    }

    @Override
    public String childJava() throws IOException {
      if (!ArmeriaPeerJar.built()) {
        throw new IOException(ArmeriaPeerJar.NOT_BUILT);
      }
      return ServeProcess.javaCommand();
    }

    @Override
    public String cannotServe(CellSpec cell) {
      return ArmeriaPeerJar.built() ? null : ArmeriaPeerJar.NOT_BUILT;
    }

    @Override
    public RunningServer start(ServerSpec spec) throws Exception {
      if (!spec.wireKinds().equals(EnumSet.of(WireKind.HTTP))) {
        throw new IllegalStateException(
            NAME
                + " serves http peers only: transports "
                + spec.wireKinds()
                + " (expected: http; Armeria's THttpService answers HTTP alone)");
      }
      if (!ArmeriaPeerJar.built()) {
        throw new IllegalStateException(ArmeriaPeerJar.NOT_BUILT);
      }
      int eventLoops = spec.ioThreadsOr(Runtime.getRuntime().availableProcessors());
      AutoCloseable server =
          ArmeriaPeerJar.serve(
              spec.host(), spec.port(), eventLoops, spec.protocol(), spec.httpPath());
      // What ran (version, format, transport, threads), for the reader of the run's log.
      System.err.println(NAME + ": " + server);
      InetSocketAddress address =
          new InetSocketAddress(spec.host(), ((IntSupplier) server).getAsInt());
      return RunningServer.of(address, "Armeria's server", server);
    }
  }
}
