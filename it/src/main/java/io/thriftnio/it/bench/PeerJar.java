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
 * A peer stack's shaded jar, which the build puts among this module's resources ({@code
 * peer/NAME.jar}), loaded in a class loader of its own whose parent is the platform's: the peer's
 * libraries (its own Netty, libthrift and copy of {@code BenchService}) never meet the bench's
 * class path. Calls cross by reflection on the jar's entry class, with JDK types only.
 */
final class PeerJar {
  private final String name;
  private final String entry;
  private final String notBuilt;
  private ClassLoader loader;

  /**
   * @param name the jar's name without {@code .jar}, also the class loader's
   * @param entry the entry class, whose static methods {@link #invoke} calls
   * @param notBuilt why a build lacks the jar, for the errors
   */
  PeerJar(String name, String entry, String notBuilt) {
    this.name = name;
    this.entry = entry;
    this.notBuilt = notBuilt;
  }

  /** Whether this build carries the jar. */
  boolean built() {
    return PeerJar.class.getResource(resource()) != null;
  }

  /** Calls the entry class's static {@code method}; its own exceptions are thrown as they are. */
  Object invoke(String method, Class<?>[] types, Object... args) throws Exception {
    try {
      return Class.forName(entry, true, loader()).getMethod(method, types).invoke(null, args);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof Exception) {
        throw (Exception) e.getCause();
      }
      throw e;
    }
  }

  private String resource() {
    return "peer/" + name + ".jar";
  }

  /** The jar copied out to a file once per JVM (deleted on exit), and its class loader. */
  private synchronized ClassLoader loader() throws IOException {
    if (loader == null) {
      Path jar = Files.createTempFile(name, ".jar");
      jar.toFile().deleteOnExit();
      try (InputStream in = PeerJar.class.getResourceAsStream(resource())) {
        if (in == null) {
          throw new IOException(notBuilt);
        }
        Files.copy(in, jar, StandardCopyOption.REPLACE_EXISTING);
      }
      loader =
          new URLClassLoader(
              name, new URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader());
    }
    return loader;
  }
}
