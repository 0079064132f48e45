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
  void shortSoakWithOneRestartRecoversAndWritesItsReports() throws Exception {
    int status = BenchMain.execute(new String[] {
        "soak", "--server", "netty", "--strategy", "worker", "--connections", "20",
        "--duration", "6s", "--sample", "1s", "--kill-every", "1s", "--kill-count", "2",
        "--restart-every", "2s", "--restart-pause", "500ms", "--large", "16k",
        "--out", dir.toString()},
        new PrintWriter(out, true), new PrintWriter(err, true));

    String summary = out.toString();
    assertThat(status).as(err.toString()).isZero();
    // A restart every 2 s in a 6 s run: at 2 s and 4 s (the next would be at the end).
    assertThat(summary)
        .contains("| restarts | 2 |")
        .contains("| **errors outside fault windows** | **0** |")
        .contains("| wrong replies | 0 |")
        .contains("Findings: none");
    assertThat(summary).containsPattern("\\| first ok call after restart \\(ms\\) \\| \\[\\d+, \\d+]");
    List<String> csv = Files.readAllLines(dir.resolve("samples.csv"), StandardCharsets.UTF_8);
    assertThat(csv.get(0)).startsWith("seconds,calls_ok,calls_per_s,errors,");
    assertThat(csv.size()).isGreaterThanOrEqualTo(1 + 5);
    assertThat(csv).anyMatch(line -> line.endsWith(",restart") || line.contains(",restart "));
    assertThat(Files.readString(dir.resolve("summary.md"))).isEqualTo(summary);
    byte[] png = Files.readAllBytes(dir.resolve("soak.png"));
    assertThat(png).startsWith(0x89, 'P', 'N', 'G');
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void rejectsAServerThatIsNotOneOfOurs() {
    int status = BenchMain.execute(
        new String[] {"soak", "--server", "thrift-hsha"},
        new PrintWriter(out, true), new PrintWriter(err, true));

    assertThat(status).isEqualTo(2);
    assertThat(err.toString()).contains("server: thrift-hsha (expected: netty or grizzly)");
  }
}
