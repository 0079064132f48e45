package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code matrix --preset guide}: The Programmer's Guide to Apache Thrift's progression (HTTP + JSON
 * through a servlet, TCP + JSON, TCP + binary), each step a fixed count of sequential {@code
 * get_last_sale} calls from one client.
 */
class GuidePresetTest {

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return BenchMain.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  private static MatrixPlan plan(String... args) {
    MatrixCommand command = new MatrixCommand();
    new CommandLine(command).parseArgs(args);
    return command.plan(Rows.standard());
  }

  @Test
  void thePresetIsAMillionSequentialCallsPerStepFromOneClient() {
    MatrixPlan plan = plan("--preset", "guide");
    assertThat(plan.maxCalls()).isEqualTo(1_000_000);
    assertThat(plan.warmup()).isEqualTo(Duration.ZERO);
    assertThat(plan.servers())
        .containsExactly("thrift-servlet", "thrift-threadpool", "netty/worker", "grizzly/worker");
    List<String> cells =
        new MatrixRunner(Rows.standard(), plan)
            .cells().stream()
                .map(
                    c ->
                        c.server() + " " + c.client() + " " + c.protocol() + " x" + c.connections())
                .toList();
    assertThat(cells)
        .containsExactly(
            "thrift-servlet thttpclient json x1",
            "thrift-servlet tsocket json x1",
            "thrift-servlet tsocket binary x1",
            "thrift-threadpool thttpclient json x1",
            "thrift-threadpool tsocket json x1",
            "thrift-threadpool tsocket binary x1",
            "netty/worker thttpclient json x1",
            "netty/worker tsocket json x1",
            "netty/worker tsocket binary x1",
            "grizzly/worker thttpclient json x1",
            "grizzly/worker tsocket json x1",
            "grizzly/worker tsocket binary x1");
    assertThat(plan("--preset", "guide", "--calls", "2000").maxCalls()).isEqualTo(2000);
    // Explicit clients replace the grids' own: every kind named runs every protocol.
    assertThat(plan("--preset", "guide", "--clients", "tsocket").grids())
        .allSatisfy(g -> assertThat(g.clients()).isNull());
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void twoThousandCallsPerStepGiveTheTableAndGuideCsv() throws Exception {
    int status =
        run(
            "matrix",
            "--preset",
            "guide",
            "--calls",
            "2000",
            "--workers",
            "4",
            "--io-threads",
            "1",
            "--out",
            dir.toString());

    assertThat(status).as(err.toString()).isZero();
    assertThat(out.toString()).startsWith(Reports.GUIDE_CAPTION + "\n\n");
    String table = out.toString().substring(Reports.GUIDE_CAPTION.length() + 2);
    assertThat(table)
        .startsWith(
            "| step | transport | protocol | server | client | calls | total s | calls/s | p50 us"
                + " | p99 us | errors |");
    List<String> steps =
        table.lines().skip(2).takeWhile(l -> !l.isEmpty()).map(GuidePresetTest::head).toList();
    assertThat(steps)
        .containsExactly(
            "| 1 | HTTP | json | thrift-servlet | thttpclient | 2,000 |",
            "| 1 | HTTP | json | netty/worker | thttpclient | 2,000 |",
            "| 1 | HTTP | json | grizzly/worker | thttpclient | 2,000 |",
            "| 2 | TCP | json | thrift-threadpool | tsocket | 2,000 |",
            "| 2 | TCP | json | netty/worker | tsocket | 2,000 |",
            "| 2 | TCP | json | grizzly/worker | tsocket | 2,000 |",
            "| 3 | TCP | binary | thrift-threadpool | tsocket | 2,000 |",
            "| 3 | TCP | binary | netty/worker | tsocket | 2,000 |",
            "| 3 | TCP | binary | grizzly/worker | tsocket | 2,000 |");
    assertThat(table)
        .contains(
            "- thrift-servlet tsocket get_last_sale json x1: thrift-servlet serves [http] peers"
                + " only; tsocket speaks framed")
        .contains(
            "- thrift-threadpool thttpclient get_last_sale json x1: thrift-threadpool serves"
                + " [framed] peers only; thttpclient speaks http");

    List<String> csv = Files.readAllLines(dir.resolve("guide.csv"), StandardCharsets.UTF_8);
    assertThat(csv.get(0)).isEqualTo(Reports.GUIDE_CSV_HEADER);
    assertThat(csv).hasSize(10);
    for (String line : csv.subList(1, csv.size())) {
      String[] f = line.split(",", -1);
      assertThat(f[5]).as(line).isEqualTo("2000");
      assertThat(Double.parseDouble(f[6])).as(line).isPositive();
      assertThat(Double.parseDouble(f[7])).as(line).isPositive();
      assertThat(f[10]).as(line).isEqualTo("0");
      assertThat(f[11]).as(line).isEqualTo("0");
    }
    assertThat(Files.readString(dir.resolve("report.md")))
        .contains("## The Guide's progression: 2,000 sequential get_last_sale calls per step")
        .contains("| 1 | HTTP | json | thrift-servlet | thttpclient | 2,000 |");
  }

  /** The first six columns of a table line: step to calls. */
  private static String head(String line) {
    String[] cells = line.split("\\|");
    return String.join("|", List.of(cells).subList(0, 7)) + "|";
  }
}
