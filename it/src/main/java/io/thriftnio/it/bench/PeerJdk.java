package io.thriftnio.it.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A JDK for a peer whose classes need a newer Java than the bench's 17 (Drift 1.22 needs 21): this
 * JVM where it is new enough, else the newest JDK under {@value #DEFAULT_DIR}; {@code
 * -Dthriftnio.bench.jdks=DIR} looks in DIR alone (the peer-drift module's build looks the same
 * way).
 */
final class PeerJdk {

  /** The system property naming the folder of JDKs to look in instead. */
  static final String DIR_PROPERTY = "thriftnio.bench.jdks";

  /** Where the JDKs of a Debian or Ubuntu machine are. */
  static final String DEFAULT_DIR = "/usr/lib/jvm";

  private PeerJdk() {}

  /**
   * The {@code java} launcher of a JDK of feature release {@code feature} or newer.
   *
   * @param feature the least feature release, e.g. 21
   * @return this JVM's launcher where it is new enough (unless {@value #DIR_PROPERTY} is set), else
   *     the newest JDK's of the folder, or empty
   */
  static Optional<String> java(int feature) {
    String dir = System.getProperty(DIR_PROPERTY);
    if (dir == null && Runtime.version().feature() >= feature) {
      return Optional.of(ServeProcess.javaCommand());
    }
    Path best = null;
    int bestFeature = 0;
    try (Stream<Path> homes = Files.list(Paths.get(dir != null ? dir : DEFAULT_DIR))) {
      for (Path home : (Iterable<Path>) homes::iterator) {
        int f = feature(home);
        if (f >= feature && f > bestFeature && Files.isExecutable(home.resolve("bin/java"))) {
          best = home;
          bestFeature = f;
        }
      }
    } catch (IOException e) {
      // No such folder, or not readable: it holds no JDK to run the peer on.
      return Optional.empty();
    }
    return Optional.ofNullable(best).map(h -> h.resolve("bin/java").toString());
  }

  /**
   * Why no JDK of {@code feature} or newer can be had, naming where the bench looked.
   *
   * @param feature the least feature release
   * @param what the row or kind that needs it, e.g. {@code drift}
   */
  static String missing(int feature, String what) {
    String dir = System.getProperty(DIR_PROPERTY);
    return what
        + " needs a JDK >= "
        + feature
        + " (its classes are compiled for Java "
        + feature
        + "); none in "
        + (dir != null ? dir + " (-D" + DIR_PROPERTY + ")" : DEFAULT_DIR)
        + (dir != null ? "" : ", and this JVM is " + Runtime.version().feature())
        + ": install one there, or point -D"
        + DIR_PROPERTY
        + "=DIR at a folder of JDKs";
  }

  /**
   * The feature release a JDK's {@code release} file names ({@code JAVA_VERSION="25.0.1"}), or 0.
   */
  static int feature(Path home) {
    Path release = home.resolve("release");
    List<String> lines;
    try {
      lines = Files.readAllLines(release, StandardCharsets.UTF_8);
    } catch (IOException e) {
      // Not a JDK (a link to one is listed too, and read through): nothing to run on here.
      return 0;
    }
    for (String line : lines) {
      if (line.startsWith("JAVA_VERSION=")) {
        String v = line.substring("JAVA_VERSION=".length()).replace("\"", "");
        if (v.startsWith("1.")) {
          v = v.substring(2);
        }
        int end = 0;
        while (end < v.length() && Character.isDigit(v.charAt(end))) {
          end++;
        }
        return end == 0 ? 0 : Integer.parseInt(v.substring(0, end));
      }
    }
    return 0;
  }
}
