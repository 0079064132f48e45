package io.thriftnio.it.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The equal-load outputs of {@code efficiency}: the equal-load table (fixed rates) and the
 * latency-at-load table (shares of each row's maximum), on stdout and in {@code equal-load.md}, and
 * {@code equal-load.csv}; in the style of {@link EfficiencyReports}, every number the median over
 * the rounds.
 */
final class EqualLoadReports {

  /** The CSV header. */
  static final String CSV_HEADER =
      "server,shape,client,connections,load_percent,max_calls_per_sec,target_calls_per_sec,"
          + "offered_calls_per_sec,achieved_calls_per_sec,sustained_rounds,rounds,server_us_per_call,client_us_per_call,"
          + "server_alloc_bytes_per_call,p50_us,p99_us,p999_us,send_lag_p99_us,queue_growth_ms,"
          + "p99_target,errors,other_load_max";

  /** The caption above the fixed-rate table. */
  static final String RATE_CAPTION =
      "Equal load: every row offered the same calls/s open-loop (calls leave on a fixed schedule;"
          + " latency from each call's due time; median over the rounds):";

  /** The caption above the latency-at-load table. */
  static final String AT_LOAD_CAPTION =
      "Latency at load: open-loop at a share of each row's own maximum (a closed-loop probe of the"
          + " same connections); target at "
          + EqualLoad.TARGET_PERCENT
          + "%: p99 <= 2x p50:";

  /** How the open-loop numbers are taken, for the reports. */
  static final String METHOD_NOTE =
      "Latency: from each call's due time on the schedule to its reply (coordinated omission"
          + " corrected, as wrk2 does), so a call the generator or the server held back counts its"
          + " wait. "
          + RateRun.rule()
          + ". Offered: calls the generator sent per second of the window; send lag p99: how late"
          + " it sent them; when offered trails the target or the lag is large, the load"
          + " generator, not the server, fell behind. "
          + EfficiencyReports.CPU_NOTE;

  private EqualLoadReports() {}

  /** Both tables under their captions, then the skipped cells. */
  static String markdownTables(List<EqualLoadResult> results) {
    StringBuilder sb = new StringBuilder();
    String rates = rateTable(results);
    if (!rates.isEmpty()) {
      sb.append(RATE_CAPTION).append("\n\n").append(rates);
    }
    String atLoad = atLoadTable(results);
    if (!atLoad.isEmpty()) {
      sb.append(sb.length() > 0 ? "\n" : "").append(AT_LOAD_CAPTION).append("\n\n").append(atLoad);
    }
    String skipped = skippedList(results);
    if (!skipped.isEmpty()) {
      sb.append("\nSkipped:\n").append(skipped);
    }
    return sb.toString();
  }

  /** The fixed-rate cells that ran; empty if none. */
  static String rateTable(List<EqualLoadResult> results) {
    List<EqualLoadResult> rows = results.stream().filter(r -> r.ran() && !r.atLoad()).toList();
    if (rows.isEmpty()) {
      return "";
    }
    StringBuilder sb = new StringBuilder();
    sb.append(
        "| server | shape | target calls/s | offered calls/s | achieved calls/s | sustained "
            + "| server us/call "
            + "| client us/call | p50 us | p99 us | p99.9 us | send lag p99 us | errors "
            + "| other load |\n");
    sb.append("|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (EqualLoadResult r : rows) {
      sb.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %,.0f | %,.0f | %,.0f | %s | %s | %s | %,.0f | %,.0f | %,.0f | %,.0f | %d"
                  + " | %s |%n",
              r.server(),
              shapeLabel(r),
              r.target(),
              r.offered(),
              r.achieved(),
              sustained(r),
              us(r.serverUsPerCall()),
              us(r.clientUsPerCall()),
              r.p50Us(),
              r.p99Us(),
              r.p999Us(),
              r.sendLagP99Us(),
              r.errors(),
              percent(r.otherLoad())));
    }
    return sb.toString();
  }

  /** The cells at a share of the row's maximum that ran; empty if none. */
  static String atLoadTable(List<EqualLoadResult> results) {
    List<EqualLoadResult> rows = results.stream().filter(r -> r.ran() && r.atLoad()).toList();
    if (rows.isEmpty()) {
      return "";
    }
    StringBuilder sb = new StringBuilder();
    sb.append(
        "| server | shape | max calls/s | load | rate calls/s | achieved calls/s | sustained "
            + "| server us/call | p50 us | p99 us | p99.9 us | p99 / p50 | p99 <= 2x p50 "
            + "| errors | other load |\n");
    sb.append("|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|---:|---:|\n");
    for (EqualLoadResult r : rows) {
      String target = r.latencyTarget();
      sb.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %,.0f | %d%% | %,.0f | %,.0f | %s | %s | %,.0f | %,.0f | %,.0f | %s "
                  + "| %s | %d | %s |%n",
              r.server(),
              shapeLabel(r),
              r.max(),
              r.percent(),
              r.target(),
              r.achieved(),
              sustained(r),
              us(r.serverUsPerCall()),
              r.p50Us(),
              r.p99Us(),
              r.p999Us(),
              r.p50Us() > 0 ? String.format(Locale.ROOT, "%.2fx", r.p99Us() / r.p50Us()) : "-",
              target == null ? "-" : target,
              r.errors(),
              percent(r.otherLoad())));
    }
    return sb.toString();
  }

  /** {@code open-40 (netty-async)}. */
  private static String shapeLabel(EqualLoadResult r) {
    return r.shape().name() + " (" + r.client() + ")";
  }

  /** {@code yes (3/3)}, {@code no (0/3)}. */
  private static String sustained(EqualLoadResult r) {
    return (r.sustained() ? "yes" : "no")
        + " ("
        + r.sustainedRounds()
        + "/"
        + r.rounds().size()
        + ")";
  }

  static String skippedList(List<EqualLoadResult> results) {
    StringBuilder sb = new StringBuilder();
    for (EqualLoadResult r : results) {
      if (r.skipped() != null) {
        sb.append("- ")
            .append(r.server())
            .append(' ')
            .append(r.shape().name())
            .append(' ')
            .append(
                r.atLoad()
                    ? r.percent() + "% of max"
                    : String.format(Locale.ROOT, "%,.0f/s", r.rate()))
            .append(r.ran() ? ", in some rounds" : "")
            .append(": ")
            .append(r.skipped())
            .append('\n');
      }
    }
    return sb.toString();
  }

  static String csv(List<EqualLoadResult> results) {
    StringBuilder sb = new StringBuilder(CSV_HEADER).append('\n');
    for (EqualLoadResult r : results) {
      if (!r.ran()) {
        continue;
      }
      String target = r.latencyTarget();
      sb.append(
              String.join(
                  ",",
                  r.server(),
                  r.shape().name(),
                  r.client(),
                  Integer.toString(r.shape().connections()),
                  r.atLoad() ? Integer.toString(r.percent()) : "",
                  r.atLoad() ? num(r.max()) : "",
                  num(r.target()),
                  num(r.offered()),
                  num(r.achieved()),
                  Long.toString(r.sustainedRounds()),
                  Integer.toString(r.rounds().size()),
                  num(r.serverUsPerCall()),
                  num(r.clientUsPerCall()),
                  num(r.serverAllocPerCall()),
                  num(r.p50Us()),
                  num(r.p99Us()),
                  num(r.p999Us()),
                  num(r.sendLagP99Us()),
                  num(r.queueGrowthMs()),
                  target == null ? "" : target,
                  Long.toString(r.errors()),
                  num(r.otherLoad())))
          .append('\n');
    }
    return sb.toString();
  }

  static String reportMarkdown(
      EfficiencyCommand.Settings s, Pinning pin, List<EqualLoadResult> results, Instant started) {
    StringBuilder sb = new StringBuilder("# thrift-nio efficiency: equal load\n\n");
    sb.append("- run: `").append(s.label()).append("`, started ").append(started).append('\n');
    sb.append("- machine: ").append(EfficiencyReports.machine()).append('\n');
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
            " rounds interleaved across rows, each row in a fresh server JVM per round; per cell ")
        .append(s.warmup().toMillis())
        .append(" ms warm-up at the cell's rate (twice that for a server JVM's first cell) and ")
        .append(s.duration().toMillis())
        .append(" ms measured; a row's maximum is a closed-loop probe of at most 2 s per round\n");
    sb.append("- ").append(METHOD_NOTE).append("\n\n");
    String rates = rateTable(results);
    if (!rates.isEmpty()) {
      sb.append("## Equal load\n\n").append(RATE_CAPTION).append("\n\n").append(rates).append('\n');
    }
    String atLoad = atLoadTable(results);
    if (!atLoad.isEmpty()) {
      sb.append("## Latency at load\n\n")
          .append(AT_LOAD_CAPTION)
          .append("\n\n")
          .append(atLoad)
          .append('\n');
    }
    String skipped = skippedList(results);
    if (!skipped.isEmpty()) {
      sb.append("## Skipped\n\n").append(skipped).append('\n');
    }
    return sb.toString();
  }

  /** Writes {@code equal-load.csv} and {@code equal-load.md} into {@code dir}; returns them. */
  static List<Path> writeAll(
      Path dir,
      EfficiencyCommand.Settings s,
      Pinning pin,
      List<EqualLoadResult> results,
      Instant started)
      throws IOException {
    Files.createDirectories(dir);
    List<Path> written = new ArrayList<>();
    written.add(write(dir.resolve("equal-load.csv"), csv(results)));
    written.add(write(dir.resolve("equal-load.md"), reportMarkdown(s, pin, results, started)));
    return written;
  }

  private static Path write(Path file, String text) throws IOException {
    Files.writeString(file, text, StandardCharsets.UTF_8);
    return file;
  }

  private static String us(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
  }

  private static String percent(double share) {
    return Double.isNaN(share) ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * share);
  }

  private static String num(double d) {
    return Double.isNaN(d) || Double.isInfinite(d) ? "" : String.format(Locale.ROOT, "%.3f", d);
  }
}
