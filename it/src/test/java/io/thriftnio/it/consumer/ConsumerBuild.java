package io.thriftnio.it.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Builds and runs a consumer project with the Maven Wrapper, against a staging repository. */
final class ConsumerBuild {

  private ConsumerBuild() {}

  /** Copies a directory tree, as a user copies a sample. */
  static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else {
          Files.copy(f, target, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  /**
   * {@code ./mvnw -B -q package} in {@code project}: this build's artifacts from {@code staging},
   * everything else read from the user's local repository, which the build does not write to.
   */
  static void mvnwPackage(Path project, Path staging) throws Exception {
    String userRepo =
        System.getProperty(
            "thriftnio.localRepository",
            Path.of(System.getProperty("user.home"), ".m2", "repository").toString());
    run(
        project,
        Duration.ofMinutes(5),
        StagingRepository.reactorRoot().resolve("mvnw").toString(),
        "-B",
        "-q",
        "-Dmaven.repo.local=" + staging,
        "-Dmaven.repo.local.tail=" + userRepo,
        "-Dthrift-nio.version=" + StagingRepository.projectVersion(),
        "package");
  }

  /** The {@code java} launcher of the JVM running the test. */
  static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /**
   * Runs a command to its end in {@code dir}, standard error merged into its output.
   *
   * @return the output's lines
   */
  static List<String> run(Path dir, Duration timeout, String... command) throws Exception {
    Path log = Files.createTempFile(dir, "run-", ".log");
    Process p =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    p.getOutputStream().close();
    boolean exited = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (!exited) {
      p.destroyForcibly().waitFor();
    }
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    assertThat(exited)
        .as("%s ended within %s; output:%n%s", List.of(command), timeout, lines)
        .isTrue();
    assertThat(p.exitValue())
        .as("exit code of %s; output:%n%s", List.of(command), String.join("\n", lines))
        .isZero();
    return new ArrayList<>(lines);
  }
}
