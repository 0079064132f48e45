package io.thriftnio.it.bench;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.function.Function;

/**
 * The Drift peer (module {@code peer-drift}): its jar, which the build puts among this module's
 * resources, loaded in a class loader of its own whose parent is the platform's, so that Drift's
 * Netty 4.1, Guava and Guice never meet the bench's class path (Netty 4.2). Calls cross with JDK
 * types only.
 */
final class DriftPeerJar {

  /** The Java release Drift 1.22's classes are compiled for. */
  static final int JAVA = 21;

  /** Where the build puts the peer's jar, beside this class. */
  static final String RESOURCE = "peer/thrift-nio-peer-drift.jar";

  /** Why a build lacks the jar. */
  static final String NOT_BUILT =
      "the Drift peer is not in this build: module peer-drift is compiled only where the build"
          + " finds a JDK >= "
          + JAVA
          + " (Maven's own, or the newest under "
          + PeerJdk.DEFAULT_DIR
          + ")";

  private static final String ENTRY = "io.thriftnio.peer.drift.DriftPeer";

  private static ClassLoader loader;

  private DriftPeerJar() {}

  /** Whether this build carries the peer's jar. */
  static boolean built() {
    return DriftPeerJar.class.getResource(RESOURCE) != null;
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
    try {
      return Class.forName(ENTRY, true, loader()).getMethod(method, types).invoke(null, args);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof Exception) {
        throw (Exception) e.getCause();
      }
      throw e;
    }
  }

  /** The peer's class loader: the jar copied out to a file once per JVM, deleted on exit. */
  private static synchronized ClassLoader loader() throws IOException {
    if (loader == null) {
      Path jar = Files.createTempFile("thrift-nio-peer-drift", ".jar");
      jar.toFile().deleteOnExit();
      try (InputStream in = DriftPeerJar.class.getResourceAsStream(RESOURCE)) {
        if (in == null) {
          throw new IOException(NOT_BUILT);
        }
        Files.copy(in, jar, StandardCopyOption.REPLACE_EXISTING);
      }
      loader =
          new URLClassLoader(
              "thrift-nio-peer-drift",
              new URL[] {jar.toUri().toURL()},
              ClassLoader.getPlatformClassLoader());
    }
    return loader;
  }
}
