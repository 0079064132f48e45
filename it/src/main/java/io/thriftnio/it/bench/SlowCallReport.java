package io.thriftnio.it.bench;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code slowcall} command's output: a Markdown table with one row per run ({@code
 * slowcall.md}, also printed) and the same numbers as CSV ({@code slowcall.csv}).
 */
final class SlowCallReport {

  private SlowCallReport() {}

  /** The table's header; the CSV's columns follow the same order. */
  static final String HEADER =
      "| server | callers | echo calls ok | echo calls failed because of another call"
          + " | echo calls timed out behind a slow call | echo calls timed out on their own"
          + " | endpoints ejected after warm-up | slow calls timed out"
          + " | connections opened after warm-up"
          + " | echo calls/s | other processes' CPU (of the CPUs) | load average (1 min) |\n"
          + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";

  static final String CSV_HEADER =
      "server,callers,warmup_s,duration_s,request_timeout_ms,slow_millis,slow_calls,echo_ok,"
          + "echo_failed_because_of_another_call,echo_timed_out_behind_slow_call,"
          + "echo_timed_out_own,endpoints_ejected_after_warmup,endpoints_ejected_in_warmup,"
          + "slow_timed_out,"
          + "connections_opened_after_warmup,echo_calls_per_s,other_cpus,own_cpus,cpus,"
          + "load_average_1m\n";

  /** The Markdown report of {@code results}, all of one command line. */
  static String markdown(List<SlowCallScenario.Result> results) {
    SlowCallScenario.Settings s = results.get(0).settings();
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "## slowcall: %s, request timeout %d ms, %d x sleep(%d ms)%n%n",
            s.row(),
            s.callTimeout().toMillis(),
            s.slowCalls(),
            s.slowMillis()));
    sb.append(
        String.format(
            Locale.ROOT,
            "Each row: two %s servers (BenchHandler, workers %s) and one ThriftChannelPool of"
                + " Netty channels (%d event loops) over both (ClientOptions.callTimeout %d"
                + " ms, every other"
                + " setting the default), in this JVM (%s). The callers call echo(%d B) in a"
                + " loop: a %s warm-up, then %s measured, while one more caller makes %d calls to"
                + " sleep(%d ms), one a second from 1 s. A call that passes its timeout fails"
                + " with CallTimeoutException; one that only waited behind another timed-out call"
                + " on its connection says so (behindTimedOutCall, head-of-line blocking: replies"
                + " come in request order). \"Failed because of another call\" is every other"
                + " failure. Other processes' CPU: /proc/stat busy time on the CPUs this JVM may"
                + " use, less its own, over the measurement.%n%n",
            s.row(),
            s.workers() == null ? "default" : s.workers().toString(),
            s.clientIoThreads(),
            s.callTimeout().toMillis(),
            Reports.machine(),
            SlowCallScenario.ECHO_SIZE,
            duration(s.warmup()),
            duration(s.duration()),
            s.slowCalls(),
            s.slowMillis()));
    sb.append(HEADER);
    for (SlowCallScenario.Result r : results) {
      sb.append(row(r));
    }
    for (SlowCallScenario.Result r : results) {
      sb.append(notes(r));
    }
    return sb.toString();
  }

  private static String row(SlowCallScenario.Result r) {
    return String.format(
        Locale.ROOT,
        "| %s | %d | %,d | %,d | %,d | %,d | %d | %d of %d | %d | %,.0f | %s | %s |%n",
        r.settings().row(),
        r.settings().callers(),
        r.echoes().ok(),
        r.echoes().failed(),
        r.echoes().timedOutBehind(),
        r.echoes().timedOut(),
        r.ejectedAfterWarmup(),
        r.slowTimedOut(),
        r.settings().slowCalls(),
        r.createdAfterWarmup(),
        r.echoCallsPerSecond(),
        Double.isNaN(r.otherCpus())
            ? "?"
            : String.format(Locale.ROOT, "%.2f of %d", r.otherCpus(), r.cpus()),
        r.loadAverage());
  }

  private static String notes(SlowCallScenario.Result r) {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "%n%d callers:%n%n", r.settings().callers()));
    sb.append(
        String.format(
            Locale.ROOT,
            "- slow calls started at %s; timed out by their own timer %d, behind another"
                + " timed-out call %d, answered %d, failed otherwise %d%n",
            SlowCallScenario.times(r.slowAt()),
            r.slow().timedOut(),
            r.slow().timedOutBehind(),
            r.slow().ok(),
            r.slow().failed()));
    sb.append(
        String.format(
            Locale.ROOT,
            "- warm-up: %,d echo calls ok, %,d failed, %,d timed out%n",
            r.warmup().ok(),
            r.warmup().failed(),
            r.warmup().timedOut() + r.warmup().timedOutBehind()));
    if (!r.ownTimeoutsAt().isEmpty()) {
      sb.append("- echo calls timed out on their own at ")
          .append(SlowCallScenario.times(first(r.ownTimeoutsAt(), 30)))
          .append(" (negative: in the warm-up)\n");
    }
    sb.append(
        String.format(
            Locale.ROOT,
            "- endpoints ejected: %d in the warm-up, %d after%n",
            r.stats().ejections() - r.ejectedAfterWarmup(),
            r.ejectedAfterWarmup()));
    for (double at : r.ejectedAt()) {
      long ownBefore = r.ownTimeoutsAt().stream().filter(t -> t <= at && t > at - 1).count();
      sb.append(
          String.format(
              Locale.ROOT,
              "  - at %.2f s, %s; echo calls timed out on their own in the second before: %d%n",
              at,
              during(r, at),
              ownBefore));
    }
    long toFirst = r.opened().stream().filter(o -> o.server() == 1).count();
    sb.append(
        String.format(
            Locale.ROOT,
            "- connections opened: %d to server 1, %d to server 2, %d of them after the warm-up%n",
            toFirst,
            r.opened().size() - toFirst,
            r.openedAfterWarmup().size()));
    for (SlowCallScenario.Opened o : r.openedAfterWarmup()) {
      sb.append(
          String.format(
              Locale.ROOT,
              "  - at %.2f s to server %d, %s%n",
              o.at(),
              o.server(),
              during(r, o.at())));
    }
    sb.append(
        String.format(
            Locale.ROOT,
            "- this JVM's CPU during the measurement: %s; pool at the end: %s%n",
            Double.isNaN(r.ownCpus())
                ? "?"
                : String.format(Locale.ROOT, "%.2f of %d CPUs", r.ownCpus(), r.cpus()),
            r.stats()));
    kinds(sb, "echo calls failed because of another call", r.echoes());
    kinds(sb, "slow calls failed otherwise", r.slow());
    kinds(sb, "warm-up echo calls failed", r.warmup());
    List<String> findings = r.findings();
    sb.append("- findings: ").append(findings.isEmpty() ? "none" : String.join("; ", findings));
    sb.append('\n');
    return sb.toString();
  }

  /** Which slow call, if any, ran or owed its reply at {@code seconds}. */
  private static String during(SlowCallScenario.Result r, double seconds) {
    int owing = r.slowCallOwingAt(seconds);
    return owing == 0
        ? "while no slow call ran or owed its reply"
        : String.format(
            Locale.ROOT,
            "while slow call %d (started %.2f s) ran or owed its reply",
            owing,
            r.slowAt().get(owing - 1));
  }

  private static List<Double> first(List<Double> times, int n) {
    return times.size() <= n ? times : times.subList(0, n);
  }

  private static void kinds(StringBuilder sb, String what, SlowCallOutcomes o) {
    Map<String, Long> byKind = o.failedByKind();
    if (byKind.isEmpty()) {
      return;
    }
    Map<String, String> examples = o.examples();
    sb.append("- ").append(what).append(" by kind:\n");
    byKind.forEach(
        (k, n) ->
            sb.append(
                String.format(
                    Locale.ROOT,
                    "  - %s: %,d, first: `%s`%n",
                    k,
                    n,
                    examples.getOrDefault(k, "").replace('`', '\'').replace('\n', ' '))));
  }

  /** {@code 2s}, {@code 1500ms}: as the options are typed. */
  static String duration(Duration d) {
    long millis = d.toMillis();
    return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
  }

  /** The CSV of {@code results}, one line each after {@link #CSV_HEADER}. */
  static String csv(List<SlowCallScenario.Result> results) {
    StringBuilder sb = new StringBuilder(CSV_HEADER);
    for (SlowCallScenario.Result r : results) {
      SlowCallScenario.Settings s = r.settings();
      sb.append(
          String.format(
              Locale.ROOT,
              "%s,%d,%.3f,%.3f,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%.0f,%.3f,%.3f,%d,%s%n",
              s.row(),
              s.callers(),
              s.warmup().toNanos() / 1e9,
              r.seconds(),
              s.callTimeout().toMillis(),
              s.slowMillis(),
              s.slowCalls(),
              r.echoes().ok(),
              r.echoes().failed(),
              r.echoes().timedOutBehind(),
              r.echoes().timedOut(),
              r.ejectedAfterWarmup(),
              r.stats().ejections() - r.ejectedAfterWarmup(),
              r.slowTimedOut(),
              r.createdAfterWarmup(),
              r.echoCallsPerSecond(),
              r.otherCpus(),
              r.ownCpus(),
              r.cpus(),
              r.loadAverage()));
    }
    return sb.toString();
  }
}
