package io.thriftnio.it.bench;

import java.util.List;
import java.util.function.Function;

/**
 * The Drift peer (module {@code peer-drift}), a {@link PeerJar}: Drift's Netty 4.1, Guava and Guice
 * never meet the bench's class path (Netty 4.2). Its classes need Java {@value #JAVA}.
 */
final class DriftPeerJar {

  /** The Java release Drift 1.22's classes are compiled for. */
  static final int JAVA = 21;

  /** Why a build lacks the jar. */
  static final String NOT_BUILT =
      "the Drift peer is not in this build: module peer-drift is compiled only where the build"
          + " finds a JDK >= "
          + JAVA
          + " (Maven's own, or the newest under "
          + PeerJdk.DEFAULT_DIR
          + ")";

  private static final PeerJar JAR =
      new PeerJar("thrift-nio-peer-drift", "io.thriftnio.peer.drift.DriftPeer", NOT_BUILT);

  private DriftPeerJar() {}

  /** Whether this build carries the peer's jar. */
  static boolean built() {
    return JAR.built();
  }

  /** Why this JVM cannot load Drift, or {@code null}: the jar is missing, or the JVM too old. */
  static String cannotLoadHere() {
    if (!built()) {
      return NOT_BUILT;
    }
    if (Runtime.version().feature() < JAVA) {
      return "Drift 1.22's classes need Java "
          + JAVA
          + " and this JVM is "
          + Runtime.version().feature()
          + " ("
          + ServeProcess.javaCommand()
          + ")";
    }
    return null;
  }

  /**
   * Starts Drift's server ({@code DriftPeer.serve}).
   *
   * @return the server, an {@link java.util.function.IntSupplier} of its port
   */
  static AutoCloseable serve(int port, int eventLoops) throws Exception {
    return (AutoCloseable)
        invoke("serve", new Class<?>[] {int.class, int.class}, new Object[] {port, eventLoops});
  }

  /** Opens Drift clients ({@code DriftPeer.clients}), one blocking echo per lane. */
  static AutoCloseable clients(
      String host,
      int port,
      String protocol,
      int connections,
      long timeoutMillis,
      List<Function<byte[], byte[]>> lanes)
      throws Exception {
    return (AutoCloseable)
        invoke(
            "clients",
            new Class<?>[] {
              String.class, int.class, String.class, int.class, long.class, List.class
            },
            new Object[] {host, port, protocol, connections, timeoutMillis, lanes});
  }

  private static Object invoke(String method, Class<?>[] types, Object[] args) throws Exception {
    String why = cannotLoadHere();
    if (why != null) {
      throw new IllegalStateException(why);
    }
    return JAR.invoke(method, types, args);
  }
}
