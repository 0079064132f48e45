package io.thriftnio.it.bench;

import io.thriftnio.core.WireKind;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Writes a run's results: the Markdown table (stdout and {@code report.md}), {@code results.csv},
 * {@code results.json} and, through {@link Charts}, the PNG charts.
 */
final class Reports {

  /** The CSV header, exactly as issue 6 specifies it. */
  static final String CSV_HEADER =
      "server,client,size,protocol,connections,calls_per_sec,p50_us,p99_us,p999_us,errors";

  /** The caption above the results table. */
  static final String RESULTS_CAPTION =
      "Calls per second and latency per cell (higher calls/s and lower latency are better; errors"
          + " and bad payloads should be 0):";

  /** The caption above the response-time table. */
  static final String RESPONSE_CAPTION =
      "Response time in detail: mean, p95 and p99, the time above the handler's sleep, and the"
          + " connections the client opened:";

  /** The caption above the {@code guide} preset's table. */
  static final String GUIDE_CAPTION =
      "The Guide's progression: one client making sequential get_last_sale calls, per step and"
          + " server:";

  private Reports() {}

  /** The results table of cells that ran. */
  static String markdownTable(List<CellResult> results) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        "| server | client | size | protocol | connections | calls/s | p50 us | p99 us "
            + "| p99.9 us | errors | bad payloads |\n");
    sb.append("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (CellResult r : results) {
      if (!r.ran()) {
        continue;
      }
      sb.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %d | %,.0f | %,d | %,d | %,d | %d | %d |%n",
              r.server(),
              r.client(),
              r.size(),
              r.protocol(),
              r.connections(),
              r.callsPerSec(),
              r.p50Us(),
              r.p99Us(),
              r.p999Us(),
              r.errors(),
              r.checkFailures()));
    }
    return sb.toString();
  }

  /** The CSV header of {@code guide.csv}: one line per step and server. */
  static final String GUIDE_CSV_HEADER =
      "step,transport,protocol,server,client,calls,total_seconds,calls_per_sec,p50_us,p99_us,"
          + "errors,bad_replies";

  /** Whether {@code plan} runs the {@code guide} preset. */
  static boolean isGuide(MatrixPlan plan) {
    return plan.preset().equals("guide") || plan.preset().startsWith("guide+");
  }

  /** One step of the Guide's progression that ran: its number, transport and protocol. */
  private record GuideStep(int step, String transport, CellResult result) {}

  private static List<GuideStep> guideSteps(List<CellResult> results, Rows rows) {
    List<GuideStep> steps = new ArrayList<>();
    for (CellResult r : results) {
      if (!r.ran()) {
        continue;
      }
      ClientKindRow kind = rows.client(r.client());
      boolean http = kind != null && kind.wireKind() == WireKind.HTTP;
      int step = http ? 1 : r.protocol().equals("json") ? 2 : 3;
      steps.add(new GuideStep(step, http ? "HTTP" : "TCP", r));
    }
    steps.sort(Comparator.comparingInt(GuideStep::step));
    return steps;
  }

  /**
   * The {@code guide} preset's table: per step (1 HTTP + JSON, 2 TCP + JSON, 3 TCP + binary) and
   * server, the calls, their total time, calls/s, p50 and p99.
   */
  static String guideTable(List<CellResult> results, Rows rows) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        "| step | transport | protocol | server | client | calls | total s | calls/s | p50 us "
            + "| p99 us | errors |\n");
    sb.append("|---:|---|---|---|---|---:|---:|---:|---:|---:|---:|\n");
    for (GuideStep g : guideSteps(results, rows)) {
      CellResult r = g.result();
      sb.append(
          String.format(
              Locale.ROOT,
              "| %d | %s | %s | %s | %s | %,d | %,.1f | %,.0f | %,d | %,d | %d |%n",
              g.step(),
              g.transport(),
              r.protocol(),
              r.server(),
              r.client(),
              r.calls(),
              r.seconds(),
              r.callsPerSec(),
              r.p50Us(),
              r.p99Us(),
              r.errors() + r.checkFailures()));
    }
    return sb.toString();
  }

  /** {@code guide.csv}: {@link #GUIDE_CSV_HEADER}, then one line per step and server. */
  static String guideCsv(List<CellResult> results, Rows rows) {
    StringBuilder sb = new StringBuilder(GUIDE_CSV_HEADER).append('\n');
    for (GuideStep g : guideSteps(results, rows)) {
      CellResult r = g.result();
      sb.append(
          String.join(
              ",",
              Integer.toString(g.step()),
              g.transport(),
              r.protocol(),
              csvField(r.server()),
              csvField(r.client()),
              Long.toString(r.calls()),
              num(r.seconds()),
              num(r.callsPerSec()),
              Long.toString(r.p50Us()),
              Long.toString(r.p99Us()),
              Long.toString(r.errors()),
              Long.toString(r.checkFailures())));
      sb.append('\n');
    }
    return sb.toString();
  }

  /**
   * Response time in detail: mean, p95, the overhead above the handler's sleep (for {@code
   * sleep(ms)} cells), and connections opened. The {@code pool} preset's table.
   */
  static String responseTable(List<CellResult> results) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        "| server | client | call | parallelism | calls/s | mean ms | p95 ms | p99 ms "
            + "| mean overhead ms | p95 overhead ms | connections opened | errors |\n");
    sb.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (CellResult r : results) {
      if (!r.ran()) {
        continue;
      }
      long sleepMs = sleepMillis(r.size());
      sb.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %d | %,.0f | %.1f | %.1f | %.1f | %s | %s | %s | %d |%n",
              r.server(),
              r.client(),
              r.size(),
              r.connections(),
              r.callsPerSec(),
              r.meanUs() / 1000.0,
              r.p95Us() / 1000.0,
              r.p99Us() / 1000.0,
              sleepMs < 0 ? "-" : String.format(Locale.ROOT, "%.1f", r.meanUs() / 1000.0 - sleepMs),
              sleepMs < 0 ? "-" : String.format(Locale.ROOT, "%.1f", r.p95Us() / 1000.0 - sleepMs),
              r.connectionsOpened() < 0 ? "-" : Long.toString(r.connectionsOpened()),
              r.errors()));
    }
    return sb.toString();
  }

  /** The skipped cells and why, one Markdown bullet each; empty if none. */
  static String skippedList(List<CellResult> results) {
    StringBuilder sb = new StringBuilder();
    for (CellResult r : results) {
      if (!r.ran()) {
        sb.append("- ")
            .append(r.server())
            .append(' ')
            .append(r.client())
            .append(' ')
            .append(r.size())
            .append(' ')
            .append(r.protocol())
            .append(" x")
            .append(r.connections())
            .append(": ")
            .append(r.skipped())
            .append('\n');
      }
    }
    return sb.toString();
  }

  /** The handler's sleep for a {@code sleep(ms)} label, or -1. */
  static long sleepMillis(String label) {
    if (label.startsWith("sleep(") && label.endsWith(")")) {
      return Long.parseLong(label.substring(6, label.length() - 1));
    }
    return -1;
  }

  static String csv(List<CellResult> results) {
    StringBuilder sb = new StringBuilder(CSV_HEADER).append('\n');
    for (CellResult r : results) {
      if (!r.ran()) {
        continue;
      }
      sb.append(
          String.format(
              Locale.ROOT,
              "%s,%s,%s,%s,%d,%.1f,%d,%d,%d,%d%n",
              csvField(r.server()),
              csvField(r.client()),
              csvField(r.size()),
              csvField(r.protocol()),
              r.connections(),
              r.callsPerSec(),
              r.p50Us(),
              r.p99Us(),
              r.p999Us(),
              r.errors()));
    }
    return sb.toString();
  }

  private static String csvField(String s) {
    if (s.contains(",") || s.contains("\"") || s.contains("\n")) {
      return '"' + s.replace("\"", "\"\"") + '"';
    }
    return s;
  }

  static String json(MatrixPlan plan, List<CellResult> results, Instant started) {
    StringBuilder sb = new StringBuilder("{\n");
    sb.append("  \"preset\": ").append(str(plan.preset())).append(",\n");
    sb.append("  \"started\": ").append(str(started.toString())).append(",\n");
    sb.append("  \"machine\": ").append(machineJson()).append(",\n");
    sb.append("  \"settings\": {")
        .append("\"warmup_ms\": ")
        .append(plan.warmup().toMillis())
        .append(", \"duration_ms\": ")
        .append(plan.duration().toMillis())
        .append(", \"in_flight\": ")
        .append(plan.inFlight())
        .append(", \"pool_size\": ")
        .append(plan.poolSize())
        .append(", \"server_workers\": ")
        .append(plan.serverWorkers())
        .append(", \"server_io_threads\": ")
        .append(plan.serverIoThreads())
        .append(", \"target\": ")
        .append(
            plan.target() == null
                ? "null"
                : str(plan.target().getHostString() + ":" + plan.target().getPort()))
        .append("},\n");
    sb.append("  \"results\": [");
    String sep = "\n";
    for (CellResult r : results) {
      sb.append(sep).append("    {");
      sb.append("\"server\": ").append(str(r.server()));
      sb.append(", \"client\": ").append(str(r.client()));
      sb.append(", \"size\": ").append(str(r.size()));
      sb.append(", \"protocol\": ").append(str(r.protocol()));
      sb.append(", \"connections\": ").append(r.connections());
      if (r.ran()) {
        sb.append(", \"calls_per_sec\": ").append(num(r.callsPerSec()));
        sb.append(", \"calls\": ").append(r.calls());
        sb.append(", \"mean_us\": ").append(num(r.meanUs()));
        sb.append(", \"p50_us\": ").append(r.p50Us());
        sb.append(", \"p95_us\": ").append(r.p95Us());
        sb.append(", \"p99_us\": ").append(r.p99Us());
        sb.append(", \"p999_us\": ").append(r.p999Us());
        sb.append(", \"max_us\": ").append(r.maxUs());
        sb.append(", \"errors\": ").append(r.errors());
        sb.append(", \"check_failures\": ").append(r.checkFailures());
        sb.append(", \"connections_opened\": ")
            .append(r.connectionsOpened() < 0 ? "null" : Long.toString(r.connectionsOpened()));
        sb.append(", \"seconds\": ").append(num(r.seconds()));
      } else {
        sb.append(", \"skipped\": ").append(str(r.skipped()));
      }
      sb.append('}');
      sep = ",\n";
    }
    sb.append("\n  ]\n}\n");
    return sb.toString();
  }

  /** What the numbers were measured on. */
  static String machine() {
    Runtime rt = Runtime.getRuntime();
    return String.format(
        Locale.ROOT,
        "%d processors, %d MiB max heap, %s %s (%s), %s %s %s",
        rt.availableProcessors(),
        rt.maxMemory() / (1024 * 1024),
        System.getProperty("java.vm.name"),
        System.getProperty("java.version"),
        System.getProperty("java.vendor"),
        System.getProperty("os.name"),
        System.getProperty("os.version"),
        System.getProperty("os.arch"));
  }

  private static String machineJson() {
    Runtime rt = Runtime.getRuntime();
    return "{\"processors\": "
        + rt.availableProcessors()
        + ", \"max_heap_mib\": "
        + rt.maxMemory() / (1024 * 1024)
        + ", \"java\": "
        + str(System.getProperty("java.vm.name") + " " + System.getProperty("java.version"))
        + ", \"os\": "
        + str(
            System.getProperty("os.name")
                + " "
                + System.getProperty("os.version")
                + " "
                + System.getProperty("os.arch"))
        + ", \"jvm_args\": "
        + str(String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()))
        + "}";
  }

  static String str(String s) {
    if (s == null) {
      return "null";
    }
    StringBuilder sb = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"':
          sb.append("\\\"");
          break;
        case '\\':
          sb.append("\\\\");
          break;
        case '\n':
          sb.append("\\n");
          break;
        case '\r':
          sb.append("\\r");
          break;
        case '\t':
          sb.append("\\t");
          break;
        default:
          if (c < 0x20) {
            sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
      }
    }
    return sb.append('"').toString();
  }

  private static String num(double d) {
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      return "null";
    }
    return String.format(Locale.ROOT, "%.3f", d);
  }

  static String reportMarkdown(
      MatrixPlan plan, List<CellResult> results, Instant started, List<Path> charts, Path dir) {
    return reportMarkdown(plan, results, started, charts, dir, null);
  }

  /**
   * {@code report.md}.
   *
   * @param guide the {@code guide} preset's table, or {@code null}
   */
  static String reportMarkdown(
      MatrixPlan plan,
      List<CellResult> results,
      Instant started,
      List<Path> charts,
      Path dir,
      String guide) {
    StringBuilder sb = new StringBuilder();
    sb.append("# thrift-nio throughput matrix\n\n");
    sb.append("- preset: `").append(plan.preset()).append("`\n");
    sb.append("- started: ").append(started).append('\n');
    sb.append("- machine: ").append(machine()).append('\n');
    sb.append("- warm-up ")
        .append(plan.warmup().toMillis())
        .append(" ms, measured ")
        .append(plan.duration().toMillis())
        .append(
            plan.maxCalls() > 0
                ? String.format(
                    Locale.ROOT, " ms or %,d calls, whichever ends first,", plan.maxCalls())
                : " ms")
        .append(" per cell; async in-flight per connection ")
        .append(plan.inFlight())
        .append('\n');
    sb.append("- servers: ")
        .append(
            plan.target() != null
                ? "external target " + plan.target().getHostString() + ":" + plan.target().getPort()
                : "in-process on loopback")
        .append("\n\n");
    if (guide != null) {
      sb.append("## The Guide's progression: ")
          .append(String.format(Locale.ROOT, "%,d", plan.maxCalls()))
          .append(" sequential get_last_sale calls per step, one client\n\n")
          .append(GUIDE_CAPTION)
          .append("\n\n")
          .append(guide)
          .append('\n');
    }
    sb.append("## Results\n\n")
        .append(RESULTS_CAPTION)
        .append("\n\n")
        .append(markdownTable(results))
        .append('\n');
    sb.append("## Response time and connections\n\n")
        .append(RESPONSE_CAPTION)
        .append("\n\n")
        .append(responseTable(results))
        .append('\n');
    String skipped = skippedList(results);
    if (!skipped.isEmpty()) {
      sb.append("## Skipped cells\n\n").append(skipped).append('\n');
    }
    if (!charts.isEmpty()) {
      sb.append("## Charts\n\n");
      for (Path chart : charts) {
        String rel = dir.relativize(chart).toString();
        sb.append("![").append(rel).append("](").append(rel).append(")\n\n");
      }
    }
    return sb.toString();
  }

  /**
   * Writes every output file into {@code dir}.
   *
   * @return the files written
   */
  static List<Path> writeAll(Path dir, MatrixPlan plan, List<CellResult> results, Instant started)
      throws IOException {
    return writeAll(dir, plan, results, started, Rows.standard());
  }

  /**
   * Writes every output file into {@code dir}; for the {@code guide} preset also {@code guide.csv},
   * and its table in {@code report.md}.
   *
   * @param rows tells which client kinds speak HTTP
   * @return the files written
   */
  static List<Path> writeAll(
      Path dir, MatrixPlan plan, List<CellResult> results, Instant started, Rows rows)
      throws IOException {
    Files.createDirectories(dir);
    List<Path> written = new ArrayList<>();
    written.add(write(dir.resolve("results.csv"), csv(results)));
    written.add(write(dir.resolve("results.json"), json(plan, results, started)));
    String guide = null;
    if (isGuide(plan)) {
      written.add(write(dir.resolve("guide.csv"), guideCsv(results, rows)));
      guide = guideTable(results, rows);
    }
    List<Path> charts = Charts.writeAll(dir, results);
    String report = reportMarkdown(plan, results, started, charts, dir, guide);
    written.add(write(dir.resolve("report.md"), report));
    written.addAll(charts);
    return written;
  }

  private static Path write(Path file, String text) throws IOException {
    Files.writeString(file, text, StandardCharsets.UTF_8);
    return file;
  }
}
