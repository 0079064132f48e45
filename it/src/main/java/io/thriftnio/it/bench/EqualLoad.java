package io.thriftnio.it.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The equal-load part of an {@code efficiency} run ({@code --rates}, {@code --pipelined-rates},
 * {@code --at-load}): open-loop runs ({@link OpenLoop}) at fixed rates that every row is offered
 * alike, and at shares of each row's own maximum.
 *
 * <p>Two shapes: {@code open-<connections>} (40 by default: the connections of {@code tsocket-40})
 * runs {@code --rates}, and {@code open-8} (the connections of {@code async-8x32}) runs {@code
 * --pipelined-rates}. {@code --at-load} runs on both: a closed-loop probe finds the row's maximum
 * for the shape ({@code 40 x 1} call in flight, {@code 8 x 32}), then open-loop runs at each share
 * of it.
 *
 * @param rates calls/s of the {@code open-<connections>} shape
 * @param pipelinedRates calls/s of the {@code open-8} shape
 * @param atLoad percents of each row's closed-loop maximum, 1..100
 * @param connections connections of the {@code open-<connections>} shape
 * @param client the client kind for every row, or {@code null} for each row's own ({@link
 *     ServerRow#openLoopClient()})
 */
record EqualLoad(
    List<Double> rates,
    List<Double> pipelinedRates,
    List<Integer> atLoad,
    int connections,
    String client) {

  /** Connections of the pipelined shape: those of {@code async-8x32}. */
  static final int PIPELINED_CONNECTIONS = 8;

  /** Calls in flight per connection of the pipelined shape's closed-loop probe. */
  static final int PIPELINED_PROBE_DEPTH = 32;

  /** The highest rate accepted, calls/s: far past any row, so that overload can be shown. */
  static final double MAX_RATE = 100_000_000;

  /** The share of each row's maximum that the latency target is read at. */
  static final int TARGET_PERCENT = 80;

  /**
   * One open-loop shape.
   *
   * @param name {@code open-40}, {@code open-8}
   * @param connections the client's connections
   * @param probeDepth calls in flight per connection of the closed-loop probe for {@code --at-load}
   * @param rates the fixed rates of this shape, calls/s
   */
  record Shape(String name, int connections, int probeDepth, List<Double> rates) {}

  /**
   * The equal-load settings of these options, or {@code null} when none is given (the run is the
   * usual closed-loop one).
   *
   * @throws IllegalArgumentException for a bad value, naming it
   */
  static EqualLoad parse(
      List<String> rates,
      List<String> pipelinedRates,
      List<String> atLoad,
      int connections,
      String client) {
    List<Double> r = parseRates("rates", rates);
    List<Double> p = parseRates("pipelined-rates", pipelinedRates);
    List<Integer> a = new ArrayList<>();
    for (String v : atLoad == null ? List.<String>of() : atLoad) {
      int percent;
      try {
        percent = Integer.parseInt(v.trim());
      } catch (NumberFormatException e) {
        percent = -1;
      }
      if (percent < 1 || percent > 100) {
        throw new IllegalArgumentException(
            "at-load: " + v + " (expected: percents of each row's maximum, 1..100, e.g. 50,80)");
      }
      a.add(percent);
    }
    if (r.isEmpty() && p.isEmpty() && a.isEmpty()) {
      return null;
    }
    if (connections < 1 || connections > 10_000) {
      throw new IllegalArgumentException(
          "rate-connections: " + connections + " (expected: 1..10000)");
    }
    return new EqualLoad(r, p, List.copyOf(a), connections, client);
  }

  /** Parses {@code 10000}, {@code 40k}, {@code 1.5m} (calls/s); empty for none. */
  static List<Double> parseRates(String option, List<String> values) {
    List<Double> out = new ArrayList<>();
    for (String v : values == null ? List.<String>of() : values) {
      String t = v.trim().toLowerCase(Locale.ROOT);
      double scale = 1;
      if (t.endsWith("k")) {
        scale = 1e3;
        t = t.substring(0, t.length() - 1);
      } else if (t.endsWith("m")) {
        scale = 1e6;
        t = t.substring(0, t.length() - 1);
      }
      double rate;
      try {
        rate = Double.parseDouble(t) * scale;
      } catch (NumberFormatException e) {
        rate = Double.NaN;
      }
      if (!(rate >= 1) || rate > MAX_RATE) {
        throw new IllegalArgumentException(
            option
                + ": "
                + v
                + " (expected: calls per second, 1.."
                + String.format(Locale.ROOT, "%,.0f", MAX_RATE)
                + ", comma-separated, e.g. 10000,40000 or 10k,40k)");
      }
      out.add(rate);
    }
    return List.copyOf(out);
  }

  /** The shapes that run: {@code open-<connections>} and {@code open-8}, each if it has work. */
  List<Shape> shapes() {
    List<Shape> out = new ArrayList<>();
    if (!rates.isEmpty() || !atLoad.isEmpty()) {
      out.add(new Shape("open-" + connections, connections, 1, rates));
    }
    if (!pipelinedRates.isEmpty() || !atLoad.isEmpty()) {
      out.add(
          new Shape(
              "open-" + PIPELINED_CONNECTIONS,
              PIPELINED_CONNECTIONS,
              PIPELINED_PROBE_DEPTH,
              pipelinedRates));
    }
    return out;
  }

  /** Open-loop cells per row and round, probes included. */
  int cellsPerRow() {
    int n = 0;
    for (Shape s : shapes()) {
      n += s.rates().size() + (atLoad.isEmpty() ? 0 : 1 + atLoad.size());
    }
    return n;
  }

  /** These settings as {@code efficiency} options, for the pinned load generator's command line. */
  List<String> args() {
    List<String> args = new ArrayList<>();
    if (!rates.isEmpty()) {
      args.add("--rates");
      args.add(join(rates));
    }
    if (!pipelinedRates.isEmpty()) {
      args.add("--pipelined-rates");
      args.add(join(pipelinedRates));
    }
    if (!atLoad.isEmpty()) {
      args.add("--at-load");
      args.add(String.join(",", atLoad.stream().map(String::valueOf).toList()));
    }
    args.add("--rate-connections");
    args.add(Integer.toString(connections));
    if (client != null) {
      args.add("--rate-client");
      args.add(client);
    }
    return args;
  }

  private static String join(List<Double> rates) {
    return String.join(
        ",", rates.stream().map(r -> String.format(Locale.ROOT, "%.0f", r)).toList());
  }
}
