package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code idle} with a few idle connections against a server in a child JVM: all of them are
 * accepted and counted open, none is lost, and the server's thread count does not grow with them.
 */
class IdleCommandTest {

  @TempDir Path dir;

  @ParameterizedTest
  @CsvSource({"netty, same-thread", "grizzly, leader-follower"})
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void idleConnectionsStayOpenAndCostNoThreads(String server, String strategy) throws Exception {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status =
        BenchMain.execute(
            new String[] {
              "idle",
              "--server",
              server,
              "--strategy",
              strategy,
              "--connections",
              "200",
              "--probe-rate",
              "100",
              "--probe-duration",
              "500ms",
              "--io-threads",
              "2",
              "--workers",
              "4",
              "--out",
              dir.toString()
            },
            new PrintWriter(out, true),
            new PrintWriter(err, true));

    String report = out.toString();
    assertThat(status).as(report + err).isZero();
    assertThat(report)
        .contains("| open connections (ServerStats) | 1 | 201 |")
        .contains("still open at the end (no EOF, no reset): 200 of 200")
        .containsPattern("\\| JVM threads \\| (\\d+) \\| \\1 \\|")
        .containsPattern("\\| probe p99 \\(us\\) \\| [\\d,]+ \\| [\\d,]+ \\|");
    assertThat(Files.readString(dir.resolve("idle-" + server + "-" + strategy + ".md")))
        .isEqualTo(report);
  }
}
