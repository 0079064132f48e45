package io.thriftnio.it.bench;

import java.util.List;
import java.util.Locale;

/**
 * Which cells of a pinned run were disturbed by the machine's other load, and how the reports say
 * so: a banner (stderr and the top of {@code report.md}), a {@code *} after the row's name in
 * tables and charts, and a legend under each table that has one.
 *
 * <p>The threshold is 10% of a pinned CPU: runs on a quiet 2-core VM saw 0 to 2% on every cell,
 * runs beside a build 18 to 75%, so 10% sits well above housekeeping and below any shared run seen.
 * A cell above it lost a tenth of its CPU to others, more than the round-to-round spread that
 * README asks readers to ignore (about 1.2x), and its ratios cannot be compared.
 */
final class LoadMarks {

  /** Other processes' largest share of a pinned CPU above which a cell is marked. */
  static final double THRESHOLD = 0.10;

  /** Appended to a disturbed row's name. */
  static final String MARK = " *";

  /** The line under a table with marked rows. */
  static final String LEGEND =
      String.format(
          Locale.ROOT,
          "`*` other processes took more than %.0f%% of a pinned CPU during this cell (the other"
              + " load column): its numbers measure that load as much as the server.",
          100 * THRESHOLD);

  /** The same, short enough for a chart's axis title. */
  static final String CHART_LEGEND =
      String.format(
          Locale.ROOT, "* other processes took over %.0f%% of a pinned CPU", 100 * THRESHOLD);

  private LoadMarks() {}

  static boolean disturbed(EfficiencyResult r) {
    double load = r.otherLoad();
    return r.ran() && !Double.isNaN(load) && load > THRESHOLD;
  }

  /** {@code name}, marked when {@code r} was disturbed. */
  static String mark(String name, EfficiencyResult r) {
    return disturbed(r) ? name + MARK : name;
  }

  /** Whether any of {@code rows} is marked. */
  static boolean anyDisturbed(List<EfficiencyResult> rows) {
    return rows.stream().anyMatch(LoadMarks::disturbed);
  }

  /**
   * The warning for a run with disturbed cells, one sentence per line; empty when none was.
   *
   * @param results every cell of the run
   */
  static String banner(List<EfficiencyResult> results) {
    List<EfficiencyResult> ran = results.stream().filter(EfficiencyResult::ran).toList();
    List<EfficiencyResult> busy = ran.stream().filter(LoadMarks::disturbed).toList();
    if (busy.isEmpty()) {
      return "";
    }
    double worst = busy.stream().mapToDouble(EfficiencyResult::otherLoad).max().orElse(0);
    return String.format(
        Locale.ROOT,
        "BUSY MACHINE: in %d of %d cells other processes took more than %.0f%% of a pinned CPU"
            + " (up to %.0f%%).%nThose cells are marked * in the tables and charts: their numbers"
            + " measure that load as much as the servers.%nRerun on a quiet machine before"
            + " comparing them.%n",
        busy.size(),
        ran.size(),
        100 * THRESHOLD,
        100 * worst);
  }
}
