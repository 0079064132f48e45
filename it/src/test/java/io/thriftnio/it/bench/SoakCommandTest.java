package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code soak} end to end, short: kills, one restart, the pools recover, the reports appear. */
class SoakCommandTest {

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void shortSoakWithKillsAndARestartRecoversAndWritesItsReports() throws Exception {
    int status =
        BenchMain.execute(
            new String[] {
              "soak",
              "--server",
              "netty",
              "--strategy",
              "worker",
              "--connections",
              "20",
              "--duration",
              "7s",
              "--sample",
              "1s",
              "--kill-every",
              "1s",
              "--kill-count",
              "2",
              "--restart-every",
              "3500ms",
              "--restart-pause",
              "500ms",
              "--large",
              "16k",
              "--out",
              dir.toString()
            },
            new PrintWriter(out, true),
            new PrintWriter(err, true));

    String summary = out.toString();
    assertThat(status).as(err.toString()).isZero();
    // A restart every 3.5 s in a 7 s run: one, at 3.5 s (the next would be at the end).
    assertThat(summary)
        .contains("| restarts | 1 |")
        .contains("| **errors outside fault windows** | **0** |")
        .contains("| wrong replies | 0 |")
        .contains("Descriptors back to baseline");
    // A call succeeded after the restart: the pools recovered (within their 1 s endpoint
    // back-off). Whether heap and descriptors came back is printed, not asserted: other tests
    // share this JVM.
    assertThat(summary).containsPattern("\\| first ok call after restart \\(ms\\) \\| \\[\\d+]");
    List<String> csv = Files.readAllLines(dir.resolve("samples.csv"), StandardCharsets.UTF_8);
    assertThat(csv.get(0)).startsWith("seconds,calls_ok,calls_per_s,errors,");
    assertThat(csv.size()).isGreaterThanOrEqualTo(1 + 5);
    assertThat(csv).anyMatch(line -> line.endsWith(",restart") || line.contains(",restart "));
    assertThat(Files.readString(dir.resolve("summary.md"))).isEqualTo(summary);
    byte[] png = Files.readAllBytes(dir.resolve("soak.png"));
    assertThat(png).startsWith(0x89, 'P', 'N', 'G');
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void slowCallsTimeOutAndAreCountedApartFromErrors() {
    int status =
        BenchMain.execute(
            new String[] {
              "soak",
              "--server",
              "netty",
              "--strategy",
              "worker",
              "--connections",
              "20",
              "--duration",
              "8s",
              "--sample",
              "1s",
              "--call-timeout",
              "2s",
              "--slow-share",
              "2",
              "--kill-every",
              "1s",
              "--kill-count",
              "2",
              "--restart-every",
              "0",
              "--large",
              "16k",
              "--fail-on-findings",
              "--out",
              dir.toString()
            },
            new PrintWriter(out, true),
            new PrintWriter(err, true));

    String summary = out.toString();
    assertThat(status).as(summary + err).isZero();
    assertThat(summary)
        .contains("Slow calls: 2% of the calls sleep 3000 ms, past the call timeout")
        .containsPattern("\\| slow calls timed out \\(expected; not errors\\) \\| [1-9][0-9,]* \\|")
        .contains("| **slow calls answered (the call timeout did not end them)** | **0** |")
        .contains("| **errors outside fault windows** | **0** |")
        .contains("| **ejections outside fault windows (of a live server)** | **0** |")
        .doesNotContain("slow timeout");
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void saysWhenASameThreadServerIsOverloadedByTheMixItself() {
    // One IO thread serves at most 1,000 calls/s of a mix with 10 % sleep(10 ms); 30 callers
    // thinking 5 ms offer up to 6,000.
    int status =
        BenchMain.execute(
            new String[] {
              "soak",
              "--server",
              "grizzly",
              "--strategy",
              "same-thread",
              "--io-threads",
              "1",
              "--connections",
              "20",
              "--duration",
              "2s",
              "--sample",
              "1s",
              "--think",
              "5ms",
              "--kill-every",
              "0",
              "--restart-every",
              "0",
              "--large",
              "16k",
              "--out",
              dir.toString()
            },
            new PrintWriter(out, true),
            new PrintWriter(err, true));

    assertThat(status).as(err.toString()).isZero();
    assertThat(err.toString())
        .contains("soak: warning: same-thread runs the mix's sleep(10 ms) on the 1 IO threads")
        .contains("at most about 1,000 calls/s");
    assertThat(out.toString()).contains("Overload by configuration: same-thread runs");
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void runsTheWorkerStrategyWhenNoneIsNamed() {
    int status =
        BenchMain.execute(
            new String[] {
              "soak",
              "--server",
              "netty",
              "--connections",
              "4",
              "--duration",
              "1s",
              "--sample",
              "1s",
              "--kill-every",
              "0",
              "--restart-every",
              "0",
              "--large",
              "16k",
              "--out",
              dir.toString()
            },
            new PrintWriter(out, true),
            new PrintWriter(err, true));

    assertThat(status).as(err.toString()).isZero();
    assertThat(out.toString()).startsWith("## soak: netty/worker,");
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void rejectsAServerThatIsNotOneOfOurs() {
    int status =
        BenchMain.execute(
            new String[] {"soak", "--server", "thrift-hsha"},
            new PrintWriter(out, true),
            new PrintWriter(err, true));

    assertThat(status).isEqualTo(2);
    assertThat(err.toString()).contains("server: thrift-hsha (expected: netty or grizzly)");
  }
}
