package io.thriftnio.it.bench;

/**
 * The Armeria peer (module {@code peer-armeria}), a {@link PeerJar}: Armeria's Netty 4.2.4,
 * Jackson, Micrometer 1.15 and the jar's own copies of libthrift and of {@code BenchService}'s
 * generated classes never meet the bench's class path (Netty 4.2.18).
 */
final class ArmeriaPeerJar {

  /** Why a build lacks the jar. */
  static final String NOT_BUILT =
      "the Armeria peer is not in this build: module peer-armeria's jar"
          + " (thrift-nio-peer-armeria.jar) was not among the bench's resources when it was built";

  private static final PeerJar JAR =
      new PeerJar("thrift-nio-peer-armeria", "io.thriftnio.peer.armeria.ArmeriaPeer", NOT_BUILT);

  private ArmeriaPeerJar() {}

  /** Whether this build carries the peer's jar. */
  static boolean built() {
    return JAR.built();
  }

  /**
   * Starts Armeria's server ({@code ArmeriaPeer.serve}).
   *
   * @return the server, an {@link java.util.function.IntSupplier} of its port whose {@code
   *     toString()} says what runs
   */
  static AutoCloseable serve(String host, int port, int eventLoops, String protocol, String path)
      throws Exception {
    return (AutoCloseable)
        JAR.invoke(
            "serve",
            new Class<?>[] {String.class, int.class, int.class, String.class, String.class},
            host,
            port,
            eventLoops,
            protocol,
            path);
  }
}
