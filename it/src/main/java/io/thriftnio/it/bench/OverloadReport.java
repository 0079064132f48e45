package io.thriftnio.it.bench;

import java.util.List;
import java.util.Locale;

/**
 * The {@code overload} command's tables: per handler, each row's capacity and levels; then the
 * targets of "graceful at twice capacity" (issue 41), met or not, per row.
 */
final class OverloadReport {

  /** Goodput at 2x at least this share of the goodput at 1x. */
  static final double GOODPUT_AT_2X_SHARE = 0.9;

  /** p99 of admitted calls at 2x at most this multiple of the p99 at 0.5x. */
  static final double P99_AT_2X_FACTOR = 3.0;

  /** A level whose generator sent calls later than this share of the deadline is not judged. */
  static final double MAX_SEND_LAG_SHARE = 0.25;

  /**
   * Goodput at 2x above this multiple of the measured capacity: the capacity was measured low (a
   * cold JVM, a stalled step), so the level called 2x was not twice what the row can do, and its
   * targets are not judged.
   */
  static final double CAPACITY_MEASURED_LOW = 1.15;

  /** Other processes' share of the server's CPU above which a row is marked {@code *}. */
  static final double BUSY_SHARE = 0.10;

  private OverloadReport() {}

  /**
   * A banner when any row ran beside other load on the server's CPU, else empty: such a row's
   * capacity and levels say more about the machine than about the row.
   */
  static String banner(List<OverloadResult> results) {
    long busy = results.stream().filter(r -> r.ran() && r.otherLoad() > BUSY_SHARE).count();
    long ran = results.stream().filter(OverloadResult::ran).count();
    if (busy == 0) {
      return "";
    }
    return String.format(
        Locale.ROOT,
        "> BUSY MACHINE: %d of %d rows ran while other processes took more than %d%% of the"
            + " server's CPU (rows marked *); their numbers describe the machine more than the"
            + " row.%n%n",
        busy,
        ran,
        Math.round(BUSY_SHARE * 100));
  }

  private static String mark(OverloadResult r) {
    return r.otherLoad() > BUSY_SHARE ? r.row() + " *" : r.row();
  }

  /** The level table of {@code results}, one line per row and level. */
  static String levels(List<OverloadResult> results) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        "| handler | server | capacity calls/s | level | offered/s | sent/s | send lag p99 us |"
            + " goodput/s | goodput vs 1x | p50 us | p99 us | not run | shed at deadline |"
            + " timed out | late replies | errors | handler runs | runs after deadline |"
            + " other load |\n");
    sb.append(
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (OverloadResult r : results) {
      if (!r.ran()) {
        sb.append(
            String.format(
                Locale.ROOT,
                "| %s | %s | skipped: %s | | | | | | | | | | | | | | | | |%n",
                r.handler(),
                r.row(),
                r.skipped().replace('|', '/')));
        continue;
      }
      OverloadResult.Level one = r.at(1.0);
      for (OverloadResult.Level l : r.levels()) {
        sb.append(
            String.format(
                Locale.ROOT,
                "| %s | %s | %,.0f | %sx | %,.0f | %,.0f | %,d | %,.0f | %s | %s | %s | %,d | %,d |"
                    + " %,d | %,d | %,d | %s | %s | %s |%n",
                r.handler(),
                mark(r),
                r.capacity(),
                factor(l.factor()),
                l.target(),
                l.sentPerSecond(),
                l.sendLagP99Us(),
                l.goodput(),
                one != null && one.goodput() > 0
                    ? String.format(Locale.ROOT, "%.2f", l.goodput() / one.goodput())
                    : "-",
                count(l.p50Us()),
                count(l.p99Us()),
                l.notRun(),
                l.shedAtDeadline(),
                l.timedOut(),
                l.lateReplies(),
                l.otherErrors(),
                count(l.handlerRuns()),
                count(l.lateRuns()),
                r.otherLoad() < 0 ? "-" : Math.round(r.otherLoad() * 100) + "%"));
      }
    }
    return sb.toString();
  }

  /** One line per row: the three graceful-at-2x targets, each with its numbers, met or not. */
  static String graceful(List<OverloadResult> results) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        "| handler | server | goodput 2x / 1x (>= "
            + pct(GOODPUT_AT_2X_SHARE)
            + ") | p99 2x / 0.5x (<= "
            + String.format(Locale.ROOT, "%.0f", P99_AT_2X_FACTOR)
            + "x) | runs after deadline at 2x (0) | graceful at 2x |\n");
    sb.append("|---|---|---|---|---|---|\n");
    for (OverloadResult r : results) {
      if (!r.ran()) {
        continue;
      }
      Graceful g = graceful(r);
      sb.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s | %s |%n",
              r.handler(),
              mark(r),
              g.goodput(),
              g.p99(),
              g.late(),
              g.verdict()));
    }
    return sb.toString();
  }

  /**
   * The three targets of one row, in words; {@code met} is {@code null} when a level they need
   * (0.5x, 1x, 2x) did not run or the handler's counts are unknown; {@code notJudged} says why the
   * levels that ran do not measure the row: the load generator fell behind at one of them, or the
   * row answered more in time at 2x than its capacity allows ({@link #CAPACITY_MEASURED_LOW}).
   */
  record Graceful(String goodput, String p99, String late, Boolean met, String notJudged) {

    /** The last column: met, not met, or why the row is not judged. */
    String verdict() {
      if (notJudged != null) {
        return "not judged: " + notJudged;
      }
      return met == null ? "- (levels missing)" : met ? "met" : "not met";
    }
  }

  static Graceful graceful(OverloadResult r) {
    OverloadResult.Level half = r.at(0.5);
    OverloadResult.Level one = r.at(1.0);
    OverloadResult.Level two = r.at(2.0);
    String goodput = "-";
    String p99 = "-";
    String late = "-";
    Boolean met = null;
    String notJudged = null;
    if (half != null && one != null && two != null) {
      long lagBound = (long) (MAX_SEND_LAG_SHARE * r.deadlineUs());
      for (OverloadResult.Level l : List.of(half, one, two)) {
        if (r.deadlineUs() > 0 && l.sendLagP99Us() > lagBound && notJudged == null) {
          notJudged =
              String.format(
                  Locale.ROOT,
                  "the load generator fell behind (send lag p99 %,d us at %sx, above a quarter of"
                      + " the deadline)",
                  l.sendLagP99Us(),
                  factor(l.factor()));
        }
      }
      if (notJudged == null && two.goodput() > CAPACITY_MEASURED_LOW * r.capacity()) {
        notJudged =
            String.format(
                Locale.ROOT,
                "the capacity was measured low (2x answered %,.0f calls/s in time, %.2fx the"
                    + " capacity of %,.0f)",
                two.goodput(),
                two.goodput() / r.capacity(),
                r.capacity());
      }
      double share = one.goodput() > 0 ? two.goodput() / one.goodput() : Double.NaN;
      boolean answered = two.p99Us() >= 0 && half.p99Us() > 0;
      double factor = answered ? (double) two.p99Us() / half.p99Us() : Double.NaN;
      boolean goodputMet = share >= GOODPUT_AT_2X_SHARE;
      boolean p99Met = factor <= P99_AT_2X_FACTOR;
      goodput =
          Double.isNaN(share)
              ? "- (none answered in time at 1x) not met"
              : String.format(Locale.ROOT, "%.2f %s", share, goodputMet ? "met" : "not met");
      p99 =
          answered
              ? String.format(
                  Locale.ROOT,
                  "%.2fx (%,d / %,d us) %s",
                  factor,
                  two.p99Us(),
                  half.p99Us(),
                  p99Met ? "met" : "not met")
              : "- (no call answered at 2x or 0.5x) not met";
      if (two.lateRuns() >= 0) {
        late = two.lateRuns() + (two.lateRuns() == 0 ? " met" : " not met");
        met = goodputMet && p99Met && two.lateRuns() == 0;
      } else {
        late = "unknown";
      }
    }
    return new Graceful(goodput, p99, late, met, notJudged);
  }

  /** One CSV line per row and level, with a header. */
  static String csv(List<OverloadResult> results) {
    StringBuilder sb =
        new StringBuilder(
            "handler,server,wire,deadline_us,capacity,factor,target,sent_per_s,send_lag_p99_us,"
                + "send_lag_max_us,goodput,sent,in_time,late_replies,p50_us,p99_us,not_run,"
                + "shed_at_deadline,timed_out,errors,handler_runs,late_runs,other_load,skipped\n");
    for (OverloadResult r : results) {
      if (!r.ran()) {
        sb.append(
            String.join(
                ",",
                r.handler(),
                r.row(),
                r.wire(),
                Long.toString(r.deadlineUs()),
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                '"' + r.skipped().replace('"', '\'') + '"'));
        sb.append('\n');
        continue;
      }
      for (OverloadResult.Level l : r.levels()) {
        sb.append(
            String.format(
                Locale.ROOT,
                "%s,%s,%s,%d,%.0f,%s,%.0f,%.0f,%d,%d,%.0f,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%.3f,%n",
                r.handler(),
                r.row(),
                r.wire(),
                r.deadlineUs(),
                r.capacity(),
                factor(l.factor()),
                l.target(),
                l.sentPerSecond(),
                l.sendLagP99Us(),
                l.sendLagMaxUs(),
                l.goodput(),
                l.sent(),
                l.inTime(),
                l.lateReplies(),
                l.p50Us(),
                l.p99Us(),
                l.notRun(),
                l.shedAtDeadline(),
                l.timedOut(),
                l.otherErrors(),
                l.handlerRuns(),
                l.lateRuns(),
                r.otherLoad()));
      }
    }
    return sb.toString();
  }

  static String factor(double f) {
    return f == Math.rint(f)
        ? Long.toString((long) f)
        : String.format(Locale.ROOT, "%s", Double.toString(f));
  }

  private static String count(long v) {
    return v < 0 ? "-" : String.format(Locale.ROOT, "%,d", v);
  }

  private static String pct(double share) {
    return Math.round(share * 100) + "%";
  }
}
