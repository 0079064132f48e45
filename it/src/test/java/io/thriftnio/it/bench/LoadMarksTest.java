package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25: the efficiency reports (and so the quick preset) tell the truth on a busy machine. A
 * cell with other load above 10% of a pinned CPU is marked in tables, comparisons and charts, the
 * run gets a banner, every table has a caption, the comparisons speak in plain words, and each
 * scenario gets a chart panel of its own.
 */
class LoadMarksTest {

  private static final EfficiencyScenario TSOCKET =
      new EfficiencyScenario("tsocket-40", "tsocket", 40, 1, null);
  private static final EfficiencyScenario ASYNC =
      new EfficiencyScenario("async-8x32", "netty-async", 8, 32, null);

  /** A round of 10,000 calls in 2 s; {@code other} is other processes' share of a pinned CPU. */
  private static EfficiencyResult.Sample round(long serverCpuMs, double other) {
    return new EfficiencyResult.Sample(
        10_000, 2.0, serverCpuMs * 1_000_000, 300_000_000, 0, 50, 150, 0, 0, other, 0.0);
  }

  private static EfficiencyResult cell(
      String server, EfficiencyScenario sc, long ms, double other) {
    return new EfficiencyResult(server, sc, List.of(round(ms, other)), null);
  }

  private static List<EfficiencyResult> run(double nettyLoad) {
    return List.of(
        cell("raw-echo", TSOCKET, 100, 0.01),
        cell("thrift-threadpool", TSOCKET, 160, 0.02),
        cell("netty/same-thread", TSOCKET, 150, nettyLoad),
        cell("netty/worker", TSOCKET, 120, 0.0),
        cell("raw-echo", ASYNC, 4, 0.0),
        cell("netty/same-thread", ASYNC, 8, 0.0));
  }

  @Test
  void aQuietRunHasNoBannerAndNoMarks() {
    List<EfficiencyResult> quiet = run(0.10); // exactly the threshold is not above it
    assertThat(LoadMarks.banner(quiet)).isEmpty();
    assertThat(EfficiencyReports.markdownTables(quiet))
        .doesNotContain(" * |")
        .doesNotContain(LoadMarks.LEGEND);
  }

  @Test
  void cellsAboveTheThresholdAreMarkedWithALegendAndABanner() {
    List<EfficiencyResult> busy = run(0.45);

    assertThat(LoadMarks.banner(busy))
        .startsWith("BUSY MACHINE: in 1 of 6 cells other processes took more than 10% of a pinned")
        .contains("(up to 45%)")
        .contains("marked *");
    assertThat(EfficiencyReports.markdownTables(busy))
        .startsWith(EfficiencyReports.SERVER_CAPTION + "\n\n| server | scenario |")
        .contains("| netty/same-thread * | tsocket-40 |")
        .contains("| netty/same-thread | async-8x32 |")
        .contains("| netty/worker | tsocket-40 |")
        .contains("\n" + LoadMarks.LEGEND + "\n");
  }

  @Test
  void theReportOpensWithTheBannerAndComparesInPlainWords(@TempDir Path dir) throws Exception {
    List<EfficiencyResult> busy = run(0.45);
    String report =
        EfficiencyReports.reportMarkdown(
            EfficiencyCommand.quick(dir),
            Pinning.pinned(0, 1, "taskset"),
            busy,
            Instant.EPOCH,
            List.of(),
            dir);

    assertThat(report)
        .startsWith("# thrift-nio efficiency: CPU per call\n\n> BUSY MACHINE: in 1 of 6 cells")
        .contains(EfficiencyReports.SERVER_CAPTION)
        .contains(
            "- Server CPU per call vs the raw echo, 40 blocking clients, netty/same-thread *:"
                + " 1.50x")
        .contains(
            "- Server CPU per call vs TThreadPoolServer, 40 blocking clients, netty/worker:"
                + " 0.75x")
        .contains(
            "- Server CPU per pipelined call (8 connections x 32 calls), netty/same-thread:"
                + " 0.80 us, within the 2 us goal")
        .doesNotContainIgnoringCase("target");
    assertThat(
            EfficiencyReports.reportMarkdown(
                EfficiencyCommand.quick(dir),
                Pinning.pinned(0, 1, "taskset"),
                run(0.0),
                Instant.EPOCH,
                List.of(),
                dir))
        .doesNotContain("BUSY MACHINE")
        .doesNotContain(" * |");
  }

  @Test
  void everyScenarioAndEachClientMetricGetsAPanelOfItsOwn(@TempDir Path dir) throws Exception {
    EfficiencyScenario clients =
        new EfficiencyScenario(EfficiencyScenario.CLIENT_TRANSPORTS, "tsocket", 1, 1, null);
    EfficiencyScenario nettySync =
        new EfficiencyScenario(EfficiencyScenario.CLIENT_TRANSPORTS, "netty-sync", 1, 1, null);
    List<Path> charts =
        EfficiencyCharts.writeAll(
            dir,
            run(0.45),
            List.of(
                cell("thrift-threadpool", clients, 200, 0.0),
                cell("thrift-threadpool", nettySync, 200, 0.0)));

    assertThat(charts).hasSize(2);
    BufferedImage servers = ImageIO.read(Files.newInputStream(charts.get(0)));
    BufferedImage transports = ImageIO.read(Files.newInputStream(charts.get(1)));
    BufferedImage onePanel =
        ImageIO.read(
            Files.newInputStream(
                EfficiencyCharts.writeAll(
                        Files.createDirectories(dir.resolve("one")),
                        List.of(cell("raw-echo", TSOCKET, 100, 0.0)),
                        List.of())
                    .get(0)));
    // Two scenarios: two panels, each as high as a single panel; CPU and latency: two more.
    assertThat(servers.getHeight()).isEqualTo(2 * onePanel.getHeight());
    assertThat(transports.getHeight()).isEqualTo(2 * onePanel.getHeight());
  }
}
