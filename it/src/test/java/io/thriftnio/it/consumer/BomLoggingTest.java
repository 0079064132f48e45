package io.thriftnio.it.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25: an application that imports the BOM and declares libthrift itself must still see the
 * library's log lines. Builds {@code src/test/consumers/bom-logging} (libthrift 0.25.0 declared
 * first, slf4j-simple 2) against this build's artifacts, sends its server a frame of length -1, and
 * checks that the WARN about it is printed. Without the BOM's slf4j-api, libthrift's 1.7.36 wins,
 * SLF4J falls back to NOP, and the line is lost.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class BomLoggingTest {

  @Test
  void libraryWarningsReachTheLogWhenTheApplicationDeclaresLibthrift(@TempDir Path dir)
      throws Exception {
    Path project = dir.resolve("bom-logging");
    ConsumerBuild.copyTree(Path.of("src/test/consumers/bom-logging"), project);
    Path staging = StagingRepository.stage(dir.resolve("repo"));

    ConsumerBuild.mvnwPackage(project, staging);
    List<String> output =
        ConsumerBuild.run(
            project,
            Duration.ofMinutes(1),
            ConsumerBuild.java(),
            "-cp",
            "target/bom-logging.jar",
            "check.BadFrame");

    assertThat(output).contains("read after the bad frame: -1");
    assertThat(output)
        .as("the server's WARN about the bad frame, through slf4j-simple")
        .anySatisfy(line -> assertThat(line).contains("WARN").contains("-1"));
    assertThat(output).noneSatisfy(line -> assertThat(line).contains("NOP"));
  }
}
