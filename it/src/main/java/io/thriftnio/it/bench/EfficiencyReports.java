package io.thriftnio.it.bench;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * The {@code efficiency} command's outputs: two captioned Markdown tables (stdout and {@code
 * report.md}), {@code results.csv}, {@code results.json} and two PNG charts ({@link
 * EfficiencyCharts}). Cells disturbed by other load are marked ({@link LoadMarks}).
 *
 * <p>Ratio columns divide a row's median by the median of the reference row under the same client
 * shape: {@code raw-echo} and {@code thrift-threadpool} for server CPU and p50, stock {@code
 * tsocket} for the client transports. A ratio whose reference did not run is {@code -}.
 */
final class EfficiencyReports {

  /** The CSV header. */
  static final String CSV_HEADER =
      "server,scenario,client,connections,in_flight,rounds,calls_per_sec,server_us_per_call,"
          + "client_us_per_call,p50_us,p99_us,server_alloc_bytes_per_call,server_vs_raw_echo,"
          + "server_vs_thrift_threadpool,p50_vs_thrift_threadpool,client_vs_tsocket,"
          + "p50_vs_tsocket,errors,other_load_max";

  static final String RAW_ECHO = "raw-echo";
  static final String THREAD_POOL = "thrift-threadpool";

  /** What the CPU columns count, for the reports. */
  static final String CPU_NOTE =
      "server and client us/call: utime + stime of /proc/PID/stat (every thread of the process,"
          + " GC and JIT included; 10 ms ticks) over the measured window, divided by the calls"
          + " completed in it; the client figure is the whole load-generator JVM (calling threads,"
          + " event loops, GC, JIT). Server alloc B/call: the server JVM's live threads' heap"
          + " allocation counters over the window, per call. Other load: the largest share of a"
          + " window, over the rounds, that other processes of the machine ran on the server's or the"
          + " load generator's CPU (from /proc/stat; pinned runs only); a cell above 10% is marked *.";

  private EfficiencyReports() {}

  /** The caption above the server table. */
  static final String SERVER_CAPTION =
      "Server cost per call, by client shape (median over the rounds; lower us/call is better;"
          + " `vs raw-echo` and `vs thrift-threadpool` divide by that row's figure under the same"
          + " shape):";

  /** The caption above the client-transport table. */
  static final String CLIENT_CAPTION =
      "Sync client transports, one connection making sequential calls to "
          + EfficiencyScenario.CLIENT_TRANSPORTS_SERVER
          + " (`vs tsocket` divides by a stock TSocket's figure):";

  /**
   * The server table, then the client-transport table where that scenario ran, each under its
   * caption and above the legend of its marked rows; then the skipped cells.
   */
  static String markdownTables(List<EfficiencyResult> results) {
    StringBuilder sb = new StringBuilder();
    captioned(sb, SERVER_CAPTION, serverTable(results), byScenario(results, false));
    String clients = clientTable(results);
    if (!clients.isEmpty()) {
      sb.append('\n');
      captioned(sb, CLIENT_CAPTION, clients, byScenario(results, true));
    }
    String skipped = skippedList(results);
    if (!skipped.isEmpty()) {
      sb.append("\nSkipped:\n").append(skipped);
    }
    return sb.toString();
  }

  private static void captioned(
      StringBuilder sb, String caption, String table, List<EfficiencyResult> rows) {
    sb.append(caption).append("\n\n").append(table);
    if (LoadMarks.anyDisturbed(rows)) {
      sb.append('\n').append(LoadMarks.LEGEND).append('\n');
    }
  }

  /** Server cost per client shape, grouped by shape. */
  static String serverTable(List<EfficiencyResult> results) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        "| server | scenario | calls/s | server us/call | vs raw-echo | vs thrift-threadpool "
            + "| client us/call | p50 us | p50 vs thrift-threadpool | p99 us | server alloc B/call "
            + "| errors | other load |\n");
    sb.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (EfficiencyResult r : byScenario(results, false)) {
      sb.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %,.0f | %s | %s | %s | %s | %,.0f | %s | %,.0f | %s | %d | %s |%n",
              LoadMarks.mark(r.server(), r),
              r.scenario().label(),
              r.callsPerSec(),
              us(r.serverUsPerCall()),
              ratio(r, results, RAW_ECHO, null, EfficiencyResult::serverUsPerCall),
              ratio(r, results, THREAD_POOL, null, EfficiencyResult::serverUsPerCall),
              us(r.clientUsPerCall()),
              r.p50Us(),
              ratio(r, results, THREAD_POOL, null, EfficiencyResult::p50Us),
              r.p99Us(),
              bytes(r.serverAllocPerCall()),
              r.errors(),
              percent(r.otherLoad())));
    }
    return sb.toString();
  }

  /** The sync client transports against one server; empty if that scenario did not run. */
  static String clientTable(List<EfficiencyResult> results) {
    List<EfficiencyResult> rows = byScenario(results, true);
    if (rows.isEmpty()) {
      return "";
    }
    StringBuilder sb = new StringBuilder();
    sb.append(
        "| client | server | calls/s | client us/call | vs tsocket | p50 us | p50 vs tsocket "
            + "| p99 us | server us/call | errors | other load |\n");
    sb.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (EfficiencyResult r : rows) {
      sb.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %,.0f | %s | %s | %,.0f | %s | %,.0f | %s | %d | %s |%n",
              LoadMarks.mark(r.scenario().client(), r),
              r.server(),
              r.callsPerSec(),
              us(r.clientUsPerCall()),
              ratio(r, results, r.server(), "tsocket", EfficiencyResult::clientUsPerCall),
              r.p50Us(),
              ratio(r, results, r.server(), "tsocket", EfficiencyResult::p50Us),
              r.p99Us(),
              us(r.serverUsPerCall()),
              r.errors(),
              percent(r.otherLoad())));
    }
    return sb.toString();
  }

  static String skippedList(List<EfficiencyResult> results) {
    StringBuilder sb = new StringBuilder();
    for (EfficiencyResult r : results) {
      if (r.skipped() != null) {
        sb.append("- ")
            .append(r.server())
            .append(' ')
            .append(r.scenario().name())
            .append(" (")
            .append(r.scenario().shape())
            .append(")")
            .append(r.ran() ? ", in some rounds" : "")
            .append(": ")
            .append(r.skipped())
            .append('\n');
      }
    }
    return sb.toString();
  }

  /** Results that ran, the server shapes grouped by scenario, or the client-transport shapes. */
  private static List<EfficiencyResult> byScenario(
      List<EfficiencyResult> results, boolean clientTransports) {
    Set<String> scenarios = new LinkedHashSet<>();
    results.forEach(r -> scenarios.add(r.scenario().name()));
    List<EfficiencyResult> out = new ArrayList<>();
    for (String sc : scenarios) {
      if (sc.equals(EfficiencyScenario.CLIENT_TRANSPORTS) != clientTransports) {
        continue;
      }
      results.stream().filter(r -> r.ran() && r.scenario().name().equals(sc)).forEach(out::add);
    }
    return out;
  }

  /**
   * {@code r}'s metric over the reference's: the row {@code server} under the same scenario and the
   * client {@code client} (null: {@code r}'s own).
   */
  static double ratioValue(
      EfficiencyResult r,
      List<EfficiencyResult> results,
      String server,
      String client,
      ToDoubleFunction<EfficiencyResult> metric) {
    String c = client != null ? client : r.scenario().client();
    for (EfficiencyResult base : results) {
      if (base.ran()
          && base.server().equals(server)
          && base.scenario().name().equals(r.scenario().name())
          && base.scenario().client().equals(c)) {
        double b = metric.applyAsDouble(base);
        double v = metric.applyAsDouble(r);
        return b > 0 && !Double.isNaN(v) ? v / b : Double.NaN;
      }
    }
    return Double.NaN;
  }

  private static String ratio(
      EfficiencyResult r,
      List<EfficiencyResult> results,
      String server,
      String client,
      ToDoubleFunction<EfficiencyResult> metric) {
    double v = ratioValue(r, results, server, client, metric);
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2fx", v);
  }

  private static String us(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
  }

  private static String percent(double share) {
    return Double.isNaN(share) ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * share);
  }

  private static String bytes(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%,.0f", v);
  }

  private static String num(double d) {
    return Double.isNaN(d) || Double.isInfinite(d) ? "" : String.format(Locale.ROOT, "%.3f", d);
  }

  private static String jnum(double d) {
    return Double.isNaN(d) || Double.isInfinite(d) ? "null" : String.format(Locale.ROOT, "%.3f", d);
  }

  static String csv(List<EfficiencyResult> results) {
    StringBuilder sb = new StringBuilder(CSV_HEADER).append('\n');
    for (EfficiencyResult r : results) {
      if (!r.ran()) {
        continue;
      }
      boolean clients = r.scenario().name().equals(EfficiencyScenario.CLIENT_TRANSPORTS);
      sb.append(
              String.join(
                  ",",
                  r.server(),
                  r.scenario().name(),
                  r.scenario().client(),
                  Integer.toString(r.scenario().connections()),
                  Integer.toString(r.scenario().inFlight()),
                  Integer.toString(r.rounds().size()),
                  num(r.callsPerSec()),
                  num(r.serverUsPerCall()),
                  num(r.clientUsPerCall()),
                  num(r.p50Us()),
                  num(r.p99Us()),
                  num(r.serverAllocPerCall()),
                  num(ratioValue(r, results, RAW_ECHO, null, EfficiencyResult::serverUsPerCall)),
                  num(ratioValue(r, results, THREAD_POOL, null, EfficiencyResult::serverUsPerCall)),
                  num(ratioValue(r, results, THREAD_POOL, null, EfficiencyResult::p50Us)),
                  clients
                      ? num(
                          ratioValue(
                              r, results, r.server(), "tsocket", EfficiencyResult::clientUsPerCall))
                      : "",
                  clients
                      ? num(ratioValue(r, results, r.server(), "tsocket", EfficiencyResult::p50Us))
                      : "",
                  Long.toString(r.errors()),
                  num(r.otherLoad())))
          .append('\n');
    }
    return sb.toString();
  }

  static String json(
      EfficiencyCommand.Settings s, Pinning pin, List<EfficiencyResult> results, Instant started) {
    StringBuilder sb = new StringBuilder("{\n");
    sb.append("  \"run\": ").append(Reports.str(s.label())).append(",\n");
    sb.append("  \"started\": ").append(Reports.str(started.toString())).append(",\n");
    sb.append("  \"machine\": ").append(Reports.str(machine())).append(",\n");
    sb.append("  \"pinning\": {\"pinned\": ")
        .append(pin.pinned())
        .append(", \"client_cpu\": ")
        .append(pin.clientCpu())
        .append(", \"server_cpu\": ")
        .append(pin.serverCpu())
        .append(", \"note\": ")
        .append(Reports.str(pin.note()))
        .append("},\n");
    sb.append("  \"settings\": {\"rounds\": ")
        .append(s.rounds())
        .append(", \"warmup_ms\": ")
        .append(s.warmup().toMillis())
        .append(", \"warmup_calls\": ")
        .append(s.warmupCalls())
        .append(", \"duration_ms\": ")
        .append(s.duration().toMillis())
        .append(", \"size\": ")
        .append(s.size())
        .append(", \"protocol\": ")
        .append(Reports.str(s.protocol()))
        .append(", \"server_io_threads\": ")
        .append(s.ioThreads())
        .append(", \"server_workers\": ")
        .append(s.workers())
        .append("},\n");
    sb.append("  \"measured\": ")
        .append(
            Reports.str(
                CPU_NOTE
                    + " Every number is the median"
                    + " over the rounds; rounds lists each round's own."))
        .append(",\n");
    sb.append("  \"results\": [");
    String sep = "\n";
    for (EfficiencyResult r : results) {
      sb.append(sep)
          .append("    {\"server\": ")
          .append(Reports.str(r.server()))
          .append(", \"scenario\": ")
          .append(Reports.str(r.scenario().name()))
          .append(", \"client\": ")
          .append(Reports.str(r.scenario().client()))
          .append(", \"connections\": ")
          .append(r.scenario().connections())
          .append(", \"in_flight\": ")
          .append(r.scenario().inFlight());
      if (r.ran()) {
        sb.append(", \"calls_per_sec\": ")
            .append(jnum(r.callsPerSec()))
            .append(", \"server_us_per_call\": ")
            .append(jnum(r.serverUsPerCall()))
            .append(", \"client_us_per_call\": ")
            .append(jnum(r.clientUsPerCall()))
            .append(", \"p50_us\": ")
            .append(jnum(r.p50Us()))
            .append(", \"p99_us\": ")
            .append(jnum(r.p99Us()))
            .append(", \"server_alloc_bytes_per_call\": ")
            .append(jnum(r.serverAllocPerCall()))
            .append(", \"errors\": ")
            .append(r.errors())
            .append(", \"rounds\": [");
        String rsep = "";
        for (EfficiencyResult.Sample x : r.rounds()) {
          sb.append(rsep)
              .append("{\"calls\": ")
              .append(x.calls())
              .append(", \"seconds\": ")
              .append(jnum(x.seconds()))
              .append(", \"server_cpu_ns\": ")
              .append(x.serverCpuNanos())
              .append(", \"client_cpu_ns\": ")
              .append(x.clientCpuNanos())
              .append(", \"server_allocated_bytes\": ")
              .append(x.serverAllocatedBytes())
              .append(", \"p50_us\": ")
              .append(x.p50Us())
              .append(", \"p99_us\": ")
              .append(x.p99Us())
              .append(", \"errors\": ")
              .append(x.errors())
              .append(", \"check_failures\": ")
              .append(x.checkFailures())
              .append(", \"other_load_server_cpu\": ")
              .append(jnum(x.otherOnServerCpu()))
              .append(", \"other_load_client_cpu\": ")
              .append(jnum(x.otherOnClientCpu()))
              .append('}');
          rsep = ", ";
        }
        sb.append(']');
      }
      if (r.skipped() != null) {
        sb.append(", \"skipped\": ").append(Reports.str(r.skipped()));
      }
      sb.append('}');
      sep = ",\n";
    }
    sb.append("\n  ]\n}\n");
    return sb.toString();
  }

  /** This JVM's machine line plus its collectors (each pinned JVM sees one CPU). */
  static String machine() {
    List<String> gcs = new ArrayList<>();
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      gcs.add(gc.getName());
    }
    List<Integer> online = List.of();
    try {
      online =
          ProcStat.parseCpuList(
              Files.readString(
                  Path.of("/sys/devices/system/cpu/online"), StandardCharsets.US_ASCII));
    } catch (IOException | IllegalArgumentException e) {
      // Not Linux: the JVM's own count below is all there is.
    }
    return (online.isEmpty() ? "" : online.size() + " CPUs online; the load generator sees ")
        + Reports.machine()
        + "; load generator GC "
        + String.join(" + ", gcs);
  }

  static String reportMarkdown(
      EfficiencyCommand.Settings s,
      Pinning pin,
      List<EfficiencyResult> results,
      Instant started,
      List<Path> charts,
      Path dir) {
    StringBuilder sb = new StringBuilder("# thrift-nio efficiency: CPU per call\n\n");
    String banner = LoadMarks.banner(results);
    if (!banner.isEmpty()) {
      for (String line : banner.strip().split("\\R")) {
        sb.append("> ").append(line).append('\n');
      }
      sb.append('\n');
    }
    sb.append("- run: `").append(s.label()).append("`, started ").append(started).append('\n');
    sb.append("- machine: ").append(machine()).append('\n');
    sb.append("- pinning: ").append(pin.note()).append('\n');
    sb.append("- echo of ")
        .append(s.size())
        .append(" B, ")
        .append(s.protocol())
        .append(", server IO threads ")
        .append(s.ioThreads())
        .append(", workers ")
        .append(s.workers() == null ? "each row's default" : s.workers())
        .append('\n');
    sb.append("- ")
        .append(s.rounds())
        .append(
            " rounds interleaved across rows, each row in a"
                + " fresh server JVM per round; per cell ")
        .append(s.warmup().toMillis())
        .append(" ms warm-up (twice that for a server JVM's first cell, and until ")
        .append(s.warmupCalls())
        .append(
            " calls are done and the server's JIT compiler threads have used under 2% of a CPU"
                + " for 250 ms, up to 4 times as long) and ")
        .append(s.duration().toMillis())
        .append(" ms measured; every number is the median over" + " the rounds\n");
    sb.append("- ").append(CPU_NOTE).append("\n\n");
    sb.append("## Server cost\n\n");
    captioned(sb, SERVER_CAPTION, serverTable(results), byScenario(results, false));
    sb.append('\n');
    String clients = clientTable(results);
    if (!clients.isEmpty()) {
      sb.append("## Sync client transports\n\n");
      captioned(sb, CLIENT_CAPTION, clients, byScenario(results, true));
      sb.append('\n');
    }
    String goals = EfficiencyGoals.lines(results);
    if (!goals.isEmpty()) {
      sb.append("## How the rows compare\n\n").append(goals).append('\n');
    }
    sb.append("## Goals of issue 41\n\n").append(EfficiencyGoals.table(results)).append('\n');
    String skipped = skippedList(results);
    if (!skipped.isEmpty()) {
      sb.append("## Skipped\n\n").append(skipped).append('\n');
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

  /** Writes every output into {@code dir}; returns the files. */
  static List<Path> writeAll(
      Path dir,
      EfficiencyCommand.Settings s,
      Pinning pin,
      List<EfficiencyResult> results,
      Instant started)
      throws IOException {
    Files.createDirectories(dir);
    List<Path> written = new ArrayList<>();
    written.add(write(dir.resolve("results.csv"), csv(results)));
    written.add(write(dir.resolve("results.json"), json(s, pin, results, started)));
    List<Path> charts =
        EfficiencyCharts.writeAll(dir, byScenario(results, false), byScenario(results, true));
    written.add(
        write(dir.resolve("report.md"), reportMarkdown(s, pin, results, started, charts, dir)));
    written.addAll(charts);
    return written;
  }

  private static Path write(Path file, String text) throws IOException {
    Files.writeString(file, text, StandardCharsets.UTF_8);
    return file;
  }
}
