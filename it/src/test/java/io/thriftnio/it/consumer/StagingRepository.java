package io.thriftnio.it.consumer;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A Maven local repository under {@code target/} holding this build's published artifacts, for
 * consumer projects built by a test. Never {@code ~/.m2}: a consumer build reads every other
 * artifact from the user's repository as a read-only tail ({@code maven.repo.local.tail}).
 *
 * <p>Each module's jar is made from its {@code target/classes}, so the staging works after {@code
 * test-compile} as well as after {@code package}, always from the sources being tested. The POMs
 * are copied as written, as {@code install} would.
 */
final class StagingRepository {

  /** Reactor directory and artifactId of the modules a consumer may declare. */
  private static final List<String[]> JAR_MODULES =
      List.of(
          new String[] {"core", "thrift-nio-core"},
          new String[] {"netty-transport", "thrift-nio-netty"},
          new String[] {"grizzly-transport", "thrift-nio-grizzly"},
          new String[] {"pool", "thrift-nio-pool"},
          new String[] {"micrometer", "thrift-nio-micrometer"},
          new String[] {"spring-boot-starter", "thrift-nio-spring-boot-starter"});

  private static final Pattern PARENT_VERSION =
      Pattern.compile("<artifactId>thrift-nio-parent</artifactId>\\s*<version>([^<]+)</version>");

  private StagingRepository() {}

  /** The reactor's root directory (tests run in {@code it/}). */
  static Path reactorRoot() {
    return Path.of("..").toAbsolutePath().normalize();
  }

  /** The project version, from the root pom. */
  static String projectVersion() throws IOException {
    Matcher m = PARENT_VERSION.matcher(Files.readString(reactorRoot().resolve("pom.xml")));
    if (!m.find()) {
      throw new IllegalStateException("no thrift-nio-parent version in " + reactorRoot());
    }
    return m.group(1);
  }

  /**
   * Fills {@code repo} with the parent and BOM POMs and each published jar module.
   *
   * @return {@code repo}
   */
  static Path stage(Path repo) throws IOException {
    Path root = reactorRoot();
    String version = projectVersion();
    putPom(repo, "thrift-nio-parent", version, root.resolve("pom.xml"));
    putPom(repo, "thrift-nio-bom", version, root.resolve("bom/pom.xml"));
    for (String[] module : JAR_MODULES) {
      Path dir = root.resolve(module[0]);
      Path classes = dir.resolve("target/classes");
      if (!Files.isDirectory(classes)) {
        throw new IllegalStateException(
            classes + " does not exist: build the module first (this test needs -am)");
      }
      Path artifactDir = putPom(repo, module[1], version, dir.resolve("pom.xml"));
      jar(classes, artifactDir.resolve(module[1] + "-" + version + ".jar"));
    }
    return repo;
  }

  private static Path putPom(Path repo, String artifactId, String version, Path pom)
      throws IOException {
    Path dir = repo.resolve("io/thriftnio").resolve(artifactId).resolve(version);
    Files.createDirectories(dir);
    Files.copy(
        pom,
        dir.resolve(artifactId + "-" + version + ".pom"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    return dir;
  }

  private static void jar(Path classes, Path jar) throws IOException {
    try (OutputStream file = Files.newOutputStream(jar);
        JarOutputStream out = new JarOutputStream(file);
        Stream<Path> files = Files.walk(classes)) {
      for (Path f : (Iterable<Path>) files.sorted()::iterator) {
        String name = classes.relativize(f).toString().replace('\\', '/');
        if (name.isEmpty()) {
          continue;
        }
        if (Files.isDirectory(f)) {
          out.putNextEntry(new JarEntry(name + "/"));
        } else {
          out.putNextEntry(new JarEntry(name));
          Files.copy(f, out);
        }
        out.closeEntry();
      }
    }
  }
}
