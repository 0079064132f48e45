package io.thriftnio.it.bench;

/**
 * What one open-loop run ({@link OpenLoop}) measured over its window, and whether it kept up.
 *
 * <p><b>The rule.</b> A run sustained its target rate when both hold: it answered at least {@value
 * #MIN_ACHIEVED_SHARE} of the target over the window, and its backlog (calls due but not yet
 * answered) did not grow by more than {@value #MAX_QUEUE_GROWTH_MS} ms worth of calls from the
 * window's first fifth to its last fifth (the median backlog of each). At a rate a server keeps up
 * with, the backlog is flat (rate x latency, Little's law); a server that falls behind piles it up
 * linearly, and its latency grows without bound however close to the target its rate looks. The
 * medians of a fifth keep a single stall at the window's edge from deciding alone.
 *
 * @param target the scheduled rate, calls/s
 * @param sent calls the load generator sent inside the window: below the target's share when the
 *     generator, not the server, fell behind
 * @param calls calls answered inside the window
 * @param seconds the window's length
 * @param p50Us median latency from each call's due time, microseconds
 * @param p99Us 99th percentile, likewise
 * @param p999Us 99.9th percentile, likewise
 * @param maxUs the largest, likewise
 * @param sendLagP99Us the 99th percentile of how late the load generator sent a call after its due
 *     time: large when the generator, not the server, fell behind
 * @param backlogStart the median backlog over the window's first fifth, calls
 * @param backlogEnd the median backlog over the window's last fifth, calls
 * @param errors calls that failed
 * @param checkFailures replies with the wrong bytes
 */
record RateRun(
    double target,
    long sent,
    long calls,
    double seconds,
    long p50Us,
    long p99Us,
    long p999Us,
    long maxUs,
    long sendLagP99Us,
    double backlogStart,
    double backlogEnd,
    long errors,
    long checkFailures) {

  /** The share of the target a sustained run answers. */
  static final double MIN_ACHIEVED_SHARE = 0.98;

  /** How far the queueing delay may grow across the window of a sustained run. */
  static final long MAX_QUEUE_GROWTH_MS = 20;

  /** Calls sent per second over the window: the schedule the generator kept. */
  double offered() {
    return seconds > 0 ? sent / seconds : 0;
  }

  /** Answered calls per second over the window. */
  double achieved() {
    return seconds > 0 ? calls / seconds : 0;
  }

  /** How much the wait behind the backlog grew across the window, in milliseconds. */
  double queueGrowthMs() {
    return (backlogEnd - backlogStart) * 1000 / target;
  }

  /** Whether the run kept up with its target: see the class's rule. */
  boolean sustained() {
    return achieved() >= MIN_ACHIEVED_SHARE * target && queueGrowthMs() <= MAX_QUEUE_GROWTH_MS;
  }

  /** The rule, for reports. */
  static String rule() {
    return "sustained: answered >= "
        + Math.round(MIN_ACHIEVED_SHARE * 100)
        + "% of the target rate over the window, and the backlog (calls due but not answered)"
        + " grew by at most "
        + MAX_QUEUE_GROWTH_MS
        + " ms worth of calls from the window's first fifth to its last (medians of each)";
  }
}
