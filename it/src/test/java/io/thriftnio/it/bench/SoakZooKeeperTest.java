package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code soak --discovery zookeeper}, small: three servers registered in a real ZooKeeper, one
 * rolling round of graceful restarts, and not one failed call.
 */
class SoakZooKeeperTest {

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aRollingGracefulRestartOfThreeRegisteredServersFailsNoCall() throws Exception {
    int status =
        BenchMain.execute(
            new String[] {
              "soak",
              "--server",
              "netty",
              "--strategy",
              "worker",
              "--discovery",
              "zookeeper",
              "--servers",
              "3",
              "--connections",
              "30",
              "--duration",
              "15s",
              "--sample",
              "1s",
              "--kill-every",
              "0",
              // One round, from 8 s on: three servers, each about 0.5 s grace + drain, 0.2 s
              // down, 0.5 s for the pools to see the new one, so it ends near 12 s; the next
              // would start at 16 s, after the end.
              "--restart-every",
              "8s",
              "--restart-pause",
              "200ms",
              "--deregister-grace",
              "500ms",
              "--large",
              "16k",
              "--fail-on-findings",
              "--out",
              dir.toString()
            },
            new PrintWriter(out, true),
            new PrintWriter(err, true));

    String summary = out.toString();
    assertThat(status).as(err.toString()).isZero();
    assertThat(summary)
        .contains("3 servers registered in an embedded ZooKeeper")
        .contains("| **errors during graceful restarts** | **0** |")
        .contains("| **errors outside fault windows** | **0** |")
        .contains("| errors | 0 |")
        .contains("| wrong replies | 0 |")
        .contains("graceful restart of server 1 ")
        .contains("graceful restart of server 2 ")
        .contains("graceful restart of server 3 ")
        .contains("Findings: none");
    // Calls succeeded in each phase: before, during and after the round.
    for (String phase :
        List.of(
            "before the first rolling round",
            "during rolling rounds",
            "after the first rolling round, between rounds")) {
      Matcher m =
          Pattern.compile("\\| " + Pattern.quote(phase) + " \\| ([\\d,]+) \\|").matcher(summary);
      assertThat(m.find()).as(phase + " in\n" + summary).isTrue();
      assertThat(Long.parseLong(m.group(1).replace(",", ""))).as(phase).isPositive();
    }
    // Every restarted server took calls: the servers completed what the clients counted.
    List<String> csv = Files.readAllLines(dir.resolve("samples.csv"), StandardCharsets.UTF_8);
    assertThat(csv.get(0)).contains(",errors_in_graceful_restarts,p99_ms,");
    assertThat(csv).anyMatch(line -> line.contains("graceful-restart-3"));
    assertThat(Files.readAllBytes(dir.resolve("soak.png"))).startsWith(0x89, 'P', 'N', 'G');
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aKilledServerFailsOnlyInsideItsKillWindowAndTheOthersCarryOn() throws Exception {
    int status =
        BenchMain.execute(
            new String[] {
              "soak",
              "--server",
              "netty",
              "--strategy",
              "worker",
              "--discovery",
              "zookeeper",
              "--servers",
              "3",
              "--connections",
              "30",
              // The kill at 4 s, the node gone by 14 s (10 s session), the window closed at 16 s
              // (2 s fault grace), then 6 s on two servers in which no call may fail.
              "--duration",
              "22s",
              "--fault-grace",
              "2s",
              "--sample",
              "1s",
              "--kill-every",
              "0",
              "--restart-every",
              "0",
              "--kill-server-at",
              "4s",
              "--large",
              "16k",
              "--fail-on-findings",
              "--out",
              dir.toString()
            },
            new PrintWriter(out, true),
            new PrintWriter(err, true));

    String summary = out.toString();
    assertThat(status).as(err.toString() + summary).isZero();
    assertThat(summary)
        .contains("| servers killed (SIGKILL, no deregistration) | 1 |")
        .contains("| **errors outside fault windows** | **0** |")
        .contains("| wrong replies | 0 |")
        .contains("Findings: none");
    // Calls went on after the kill window closed: the last samples count new successes.
    List<String> csv = Files.readAllLines(dir.resolve("samples.csv"), StandardCharsets.UTF_8);
    String[] last = csv.get(csv.size() - 1).split(",");
    String[] earlier = csv.get(csv.size() - 3).split(",");
    assertThat(Long.parseLong(last[1])).isGreaterThan(Long.parseLong(earlier[1]));
    assertThat(csv).anyMatch(line -> line.contains("kill-server"));
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void severalServersNeedDiscovery() {
    int status =
        BenchMain.execute(
            new String[] {"soak", "--server", "netty", "--servers", "3"},
            new PrintWriter(out, true),
            new PrintWriter(err, true));

    assertThat(status).isEqualTo(2);
    assertThat(err.toString())
        .contains("servers: 3 (expected: 1..1; several need --discovery zookeeper)");
  }
}
