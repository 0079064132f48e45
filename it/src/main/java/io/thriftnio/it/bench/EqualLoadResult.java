package io.thriftnio.it.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * One open-loop cell of an equal-load run (a server row, a shape, a fixed rate or a share of the
 * row's maximum) over every round, and its medians, as {@link EfficiencyResult} is for the closed
 * loop.
 *
 * @param server the server row
 * @param shape the open-loop shape
 * @param client the client kind that drove it
 * @param percent the share of the row's maximum, or 0 for a fixed rate
 * @param rate the fixed rate, calls/s, or 0 for a share of the maximum
 * @param rounds one per round that ran, in round order
 * @param skipped why the cell did not run in some round, or {@code null}
 */
record EqualLoadResult(
    String server,
    EqualLoad.Shape shape,
    String client,
    int percent,
    double rate,
    List<Round> rounds,
    String skipped) {

  /**
   * One round.
   *
   * @param run the open-loop run
   * @param cost the server's and client's CPU and the server's allocation over its window
   * @param max the row's closed-loop maximum found by this round's probe, calls/s; NaN for a fixed
   *     rate
   */
  record Round(RateRun run, EfficiencyResult.Sample cost, double max) {}

  /** A cell of {@code rounds} (added to as the rounds run). */
  static EqualLoadResult of(
      String server, EqualLoad.Shape shape, String client, int percent, double rate) {
    return new EqualLoadResult(server, shape, client, percent, rate, new ArrayList<>(), null);
  }

  /** This cell with {@code why} it could not run, kept if it already says why. */
  EqualLoadResult skip(String why) {
    return skipped != null
        ? this
        : new EqualLoadResult(server, shape, client, percent, rate, rounds, why);
  }

  boolean ran() {
    return !rounds.isEmpty();
  }

  /** Whether this cell is a share of the row's maximum ({@code --at-load}). */
  boolean atLoad() {
    return percent > 0;
  }

  double max() {
    return median(Round::max);
  }

  double target() {
    return median(r -> r.run().target());
  }

  double offered() {
    return median(r -> r.run().offered());
  }

  double achieved() {
    return median(r -> r.run().achieved());
  }

  /** Rounds whose run sustained its target ({@link RateRun#sustained()}). */
  long sustainedRounds() {
    return rounds.stream().filter(r -> r.run().sustained()).count();
  }

  /** Sustained in a majority of the rounds. */
  boolean sustained() {
    return 2 * sustainedRounds() > rounds.size();
  }

  double serverUsPerCall() {
    return median(r -> r.cost().serverUsPerCall());
  }

  double clientUsPerCall() {
    return median(r -> r.cost().clientUsPerCall());
  }

  double serverAllocPerCall() {
    return median(r -> r.cost().serverAllocPerCall());
  }

  double p50Us() {
    return median(r -> r.run().p50Us());
  }

  double p99Us() {
    return median(r -> r.run().p99Us());
  }

  double p999Us() {
    return median(r -> r.run().p999Us());
  }

  double sendLagP99Us() {
    return median(r -> r.run().sendLagP99Us());
  }

  double queueGrowthMs() {
    return median(r -> r.run().queueGrowthMs());
  }

  long errors() {
    return rounds.stream().mapToLong(r -> r.run().errors() + r.run().checkFailures()).sum();
  }

  /** The largest share of a window other processes took on the server's or client's CPU. */
  double otherLoad() {
    double max = Double.NaN;
    for (Round r : rounds) {
      for (double v : new double[] {r.cost().otherOnServerCpu(), r.cost().otherOnClientCpu()}) {
        if (!Double.isNaN(v) && (Double.isNaN(max) || v > max)) {
          max = v;
        }
      }
    }
    return max;
  }

  /**
   * The latency target at {@value EqualLoad#TARGET_PERCENT}% of the row's maximum, p99 at
   * most twice p50 (medians over the rounds): {@code met}; {@code missed}, also when the row did
   * not sustain the rate (its latency then grows with the window, whatever the ratio says); {@code
   * generator-limited} when the load generator sent under {@value RateRun#MIN_ACHIEVED_SHARE} of
   * the rate, so the row was never offered it; {@code null} for any other cell.
   */
  String latencyTarget() {
    if (percent != EqualLoad.TARGET_PERCENT || !ran()) {
      return null;
    }
    if (offered() < RateRun.MIN_ACHIEVED_SHARE * target()) {
      return "generator-limited";
    }
    return sustained() && p99Us() <= 2 * p50Us() ? "met" : "missed";
  }

  private double median(ToDoubleFunction<Round> metric) {
    List<Double> values = new ArrayList<>();
    for (Round r : rounds) {
      values.add(metric.applyAsDouble(r));
    }
    return EfficiencyResult.median(values);
  }
}
