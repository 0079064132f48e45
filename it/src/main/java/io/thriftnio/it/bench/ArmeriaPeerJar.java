package io.thriftnio.it.bench;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The Armeria peer (module {@code peer-armeria}): its jar, which the build puts among this module's
 * resources, loaded in a class loader of its own whose parent is the platform's, so that Armeria's
 * Netty 4.2.4, Jackson, Micrometer 1.15 and the jar's own copies of libthrift and of {@code
 * BenchService}'s generated classes never meet the bench's class path (Netty 4.2.18). Calls cross
 * with JDK types only.
 */
final class ArmeriaPeerJar {

  /** Where the build puts the peer's jar, beside this class. */
  static final String RESOURCE = "peer/thrift-nio-peer-armeria.jar";

  /** Why a build lacks the jar. */
  static final String NOT_BUILT =
      "the Armeria peer is not in this build: module peer-armeria's jar"
          + " (thrift-nio-peer-armeria.jar) was not among the bench's resources when it was built";

  private static final String ENTRY = "io.thriftnio.peer.armeria.ArmeriaPeer";

  private static ClassLoader loader;

  private ArmeriaPeerJar() {}

  /** Whether this build carries the peer's jar. */
  static boolean built() {
    return ArmeriaPeerJar.class.getResource(RESOURCE) != null;
  }

  /**
   * Starts Armeria's server ({@code ArmeriaPeer.serve}).
   *
   * @return the server, an {@link java.util.function.IntSupplier} of its port whose {@code
   *     toString()} says what runs
   */
  static AutoCloseable serve(String host, int port, int eventLoops, String protocol, String path)
      throws Exception {
    try {
      return (AutoCloseable)
          Class.forName(ENTRY, true, loader())
              .getMethod("serve", String.class, int.class, int.class, String.class, String.class)
              .invoke(null, host, port, eventLoops, protocol, path);
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
      Path jar = Files.createTempFile("thrift-nio-peer-armeria", ".jar");
      jar.toFile().deleteOnExit();
      try (InputStream in = ArmeriaPeerJar.class.getResourceAsStream(RESOURCE)) {
        if (in == null) {
          throw new IOException(NOT_BUILT);
        }
        Files.copy(in, jar, StandardCopyOption.REPLACE_EXISTING);
      }
      loader =
          new URLClassLoader(
              "thrift-nio-peer-armeria",
              new URL[] {jar.toUri().toURL()},
              ClassLoader.getPlatformClassLoader());
    }
    return loader;
  }
}
