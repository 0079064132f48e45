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

/** {@code recovery} and {@code contention} end to end, short: their tables and files appear. */
class RecoveryCommandTest {

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return BenchMain.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aShortOutageGivesEveryPoolsRecoveryAndItsConnectsDuringTheOutage() throws Exception {
    int status =
        run("recovery", "--outages", "300ms", "--interval", "10ms", "--out", dir.toString());

    assertThat(status).as(err.toString()).isZero();
    String table = out.toString();
    for (String pool : List.of("ThriftClientPool", "ThriftAsyncClientPool", "ThriftChannelPool")) {
      // A number, not "none": each pool served again, within its back-off (at most 2 s).
      assertThat(table)
          .containsPattern("\\| 0\\.3s \\| " + pool + " \\| \\d+ \\| \\d+ \\| \\d+ \\|");
    }
    assertThat(Files.readString(dir.resolve("recovery.md"))).isEqualTo(table);
    List<String> csv = Files.readAllLines(dir.resolve("recovery.csv"), StandardCharsets.UTF_8);
    assertThat(csv.get(0))
        .isEqualTo("outage_ms,pool,first_served_ms,connect_failures,failed_calls");
    assertThat(csv).hasSize(4);
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void contentionExpiresEveryWaiter() {
    int status =
        run("contention", "--rounds", "1", "--waiters", "100", "--borrow-timeout", "300ms");

    assertThat(status).as(err.toString()).isZero();
    assertThat(out.toString()).containsPattern("\\| waiters \\| 100 \\|.* \\| 100 \\|");
  }

  @Test
  void refusesAZeroOutage() {
    assertThat(run("recovery", "--outages", "0s")).isEqualTo(2);
    assertThat(err.toString()).contains("expected: every one > 0");
  }
}
