package io.thriftnio.it.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * One cell of the {@code efficiency} command (a server row under one client shape) over every
 * round, and its medians: each reported number is the median of that number over the rounds that
 * ran (with an even count, the mean of the middle two), so the figures of one row may come from
 * different rounds.
 *
 * @param server the server row
 * @param scenario the client shape
 * @param rounds one sample per round that ran, in round order
 * @param skipped why the cell did not run in some round, or {@code null}
 */
record EfficiencyResult(
    String server, EfficiencyScenario scenario, List<Sample> rounds, String skipped) {

  /**
   * What one round measured over its window. CPU times are in nanoseconds; -1 is unknown.
   *
   * @param calls calls completed in the window
   * @param seconds the window's length
   * @param serverCpuNanos the server process's CPU time over the window
   * @param clientCpuNanos the load generator process's CPU time over the window
   * @param serverAllocatedBytes heap bytes the server's threads allocated over the window
   * @param p50Us median latency
   * @param p99Us 99th percentile latency
   * @param errors failed calls, warm-up included
   * @param checkFailures replies with the wrong bytes, warm-up included
   * @param otherOnServerCpu the share of the window (0..1) the server's CPU spent running other
   *     processes than the server: other load on a shared machine; NaN when unpinned or unknown
   * @param otherOnClientCpu the same for the load generator's CPU
   */
  record Sample(
      long calls,
      double seconds,
      long serverCpuNanos,
      long clientCpuNanos,
      long serverAllocatedBytes,
      long p50Us,
      long p99Us,
      long errors,
      long checkFailures,
      double otherOnServerCpu,
      double otherOnClientCpu) {

    double callsPerSec() {
      return calls / seconds;
    }

    double serverUsPerCall() {
      return perCall(serverCpuNanos / 1000.0);
    }

    double clientUsPerCall() {
      return perCall(clientCpuNanos / 1000.0);
    }

    double serverAllocPerCall() {
      return perCall(serverAllocatedBytes);
    }

    private double perCall(double total) {
      return calls > 0 && total >= 0 ? total / calls : Double.NaN;
    }
  }

  boolean ran() {
    return !rounds.isEmpty();
  }

  double callsPerSec() {
    return median(Sample::callsPerSec);
  }

  double serverUsPerCall() {
    return median(Sample::serverUsPerCall);
  }

  double clientUsPerCall() {
    return median(Sample::clientUsPerCall);
  }

  double p50Us() {
    return median(s -> s.p50Us());
  }

  double p99Us() {
    return median(s -> s.p99Us());
  }

  double serverAllocPerCall() {
    return median(Sample::serverAllocPerCall);
  }

  /** The largest share of a window that other processes took on the server's or client's CPU. */
  double otherLoad() {
    double max = Double.NaN;
    for (Sample s : rounds) {
      for (double v : new double[] {s.otherOnServerCpu(), s.otherOnClientCpu()}) {
        if (!Double.isNaN(v) && (Double.isNaN(max) || v > max)) {
          max = v;
        }
      }
    }
    return max;
  }

  long errors() {
    return rounds.stream().mapToLong(s -> s.errors() + s.checkFailures()).sum();
  }

  private double median(ToDoubleFunction<Sample> metric) {
    List<Double> values = new ArrayList<>();
    for (Sample s : rounds) {
      values.add(metric.applyAsDouble(s));
    }
    return median(values);
  }

  /**
   * The median of the known values (NaN ones are left out): the middle one, or the mean of the
   * middle two; NaN when none is known.
   */
  static double median(List<Double> values) {
    double[] known =
        values.stream()
            .mapToDouble(Double::doubleValue)
            .filter(v -> !Double.isNaN(v))
            .sorted()
            .toArray();
    int n = known.length;
    if (n == 0) {
      return Double.NaN;
    }
    return n % 2 == 1 ? known[n / 2] : (known[n / 2 - 1] + known[n / 2]) / 2;
  }
}
