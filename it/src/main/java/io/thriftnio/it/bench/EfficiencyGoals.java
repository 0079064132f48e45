package io.thriftnio.it.bench;

import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The comparisons a user asks of a run, one line each, in plain words: server CPU per call against
 * the raw echo and against {@code TThreadPoolServer}, CPU per pipelined call against a stated goal,
 * latency of one sequential client, the sync client transports against a stock {@code TSocket}, and
 * each THeader twin ({@code efficiency --wire header}) against its framed scenario on the same row.
 * A disturbed cell keeps its {@code *}.
 */
final class EfficiencyGoals {

  /** Server CPU per pipelined call that a SAME_THREAD row should stay within, in us. */
  static final double PIPELINED_SAME_THREAD_US = 2.0;

  /** The same for WORKER rows, which hand every call to a worker and back. */
  static final double PIPELINED_WORKER_US = 4.0;

  private EfficiencyGoals() {}

  /** One line per comparison the run's rows allow; empty when none does. */
  static String lines(List<EfficiencyResult> results) {
    StringBuilder sb = new StringBuilder();
    for (EfficiencyResult r : results) {
      if (!r.ran()) {
        continue;
      }
      String sc = r.scenario().name();
      String row = LoadMarks.mark(r.server(), r);
      EfficiencyResult framed = framedTwin(r, results);
      if (framed != null) {
        line(
            sb,
            "Server CPU per call over %s vs framed, %s, %s: %s; median latency %s",
            sc.endsWith("-sasl") ? "SASL (PLAIN, auth)" : "THeader",
            sc,
            row,
            x(ratio(r, framed, EfficiencyResult::serverUsPerCall)),
            x(ratio(r, framed, EfficiencyResult::p50Us)));
        continue;
      }
      boolean same = r.server().endsWith("/same-thread");
      boolean worker = r.server().endsWith("/worker");
      if (sc.equals("tsocket-40") && same) {
        line(
            sb,
            "Server CPU per call vs the raw echo, 40 blocking clients, %s: %s",
            row,
            ratio(r, results, EfficiencyReports.RAW_ECHO, EfficiencyResult::serverUsPerCall));
      } else if (sc.equals("tsocket-40") && (worker || r.server().endsWith("/leader-follower"))) {
        line(
            sb,
            "Server CPU per call vs TThreadPoolServer, 40 blocking clients, %s: %s",
            row,
            ratio(r, results, EfficiencyReports.THREAD_POOL, EfficiencyResult::serverUsPerCall));
      } else if (sc.equals("async-8x32") && (same || worker)) {
        double goal = same ? PIPELINED_SAME_THREAD_US : PIPELINED_WORKER_US;
        double v = r.serverUsPerCall();
        line(
            sb,
            "Server CPU per pipelined call (8 connections x 32 calls), %s: %.2f us, %s",
            row,
            v,
            String.format(
                Locale.ROOT, "%s the %.0f us goal", v <= goal ? "within" : "above", goal));
      } else if (sc.equals("seq-1") && same) {
        line(
            sb,
            "Median latency vs TThreadPoolServer, one client calling in sequence, %s: %s",
            row,
            ratio(r, results, EfficiencyReports.THREAD_POOL, EfficiencyResult::p50Us));
      } else if (sc.equals(EfficiencyScenario.CLIENT_TRANSPORTS)
          && !r.scenario().client().equals("tsocket")) {
        line(
            sb,
            "Client CPU per call vs a stock TSocket, %s: %s; median latency %s",
            LoadMarks.mark(r.scenario().client(), r),
            clientRatio(r, results, EfficiencyResult::clientUsPerCall),
            clientRatio(r, results, EfficiencyResult::p50Us));
      }
    }
    return sb.toString();
  }

  /**
   * The framed cell that {@code r}, a THeader or SASL twin ({@code seq-1-header} over {@code
   * tsocket-header}), was made from: same row, the scenario and client without the suffix; {@code
   * null} for any other cell, or when the framed one did not run.
   */
  static EfficiencyResult framedTwin(EfficiencyResult r, List<EfficiencyResult> results) {
    String sc = r.scenario().name();
    String client = r.scenario().client();
    for (String suffix : List.of("-header", "-sasl")) {
      if (!sc.endsWith(suffix) || !client.endsWith(suffix)) {
        continue;
      }
      for (EfficiencyResult base : results) {
        if (base.ran()
            && base.server().equals(r.server())
            && base.scenario().name().equals(sc.substring(0, sc.length() - suffix.length()))
            && base.scenario()
                .client()
                .equals(client.substring(0, client.length() - suffix.length()))) {
          return base;
        }
      }
    }
    return null;
  }

  private static double ratio(
      EfficiencyResult r, EfficiencyResult base, ToDoubleFunction<EfficiencyResult> metric) {
    double b = metric.applyAsDouble(base);
    double v = metric.applyAsDouble(r);
    return b > 0 && !Double.isNaN(v) ? v / b : Double.NaN;
  }

  private static void line(StringBuilder sb, String format, Object... args) {
    sb.append("- ").append(String.format(Locale.ROOT, format, args)).append('\n');
  }

  private static String ratio(
      EfficiencyResult r,
      List<EfficiencyResult> results,
      String base,
      ToDoubleFunction<EfficiencyResult> metric) {
    return x(EfficiencyReports.ratioValue(r, results, base, null, metric));
  }

  private static String clientRatio(
      EfficiencyResult r, List<EfficiencyResult> results, ToDoubleFunction<EfficiencyResult> m) {
    return x(EfficiencyReports.ratioValue(r, results, r.server(), "tsocket", m));
  }

  private static String x(double v) {
    return Double.isNaN(v)
        ? "- (its baseline did not run)"
        : String.format(Locale.ROOT, "%.2fx", v);
  }
}
