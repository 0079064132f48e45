package io.thriftnio.it.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * The {@code efficiency} command's charts: server CPU per call with one panel per client shape, and
 * the sync client transports with CPU time and latency in panels of their own. Every panel has its
 * own y-axis; a disturbed cell's bar is labelled with {@link LoadMarks#MARK}.
 */
final class EfficiencyCharts {

  private EfficiencyCharts() {}

  static List<Path> writeAll(
      Path dir, List<EfficiencyResult> servers, List<EfficiencyResult> clients) throws IOException {
    List<Path> charts = new ArrayList<>();
    if (!servers.isEmpty()) {
      Set<String> scenarios = new LinkedHashSet<>();
      servers.forEach(r -> scenarios.add(r.scenario().name()));
      List<Charts.Panel> panels = new ArrayList<>();
      for (String sc : scenarios) {
        List<EfficiencyResult> rows =
            servers.stream().filter(r -> r.scenario().name().equals(sc)).toList();
        panels.add(
            panel(
                "server CPU per call, " + sc + " (" + rows.get(0).scenario().shape() + ")",
                "server",
                "server us/call",
                rows,
                r -> LoadMarks.mark(r.server(), r),
                Map.of("server us/call", EfficiencyResult::serverUsPerCall)));
      }
      charts.add(Charts.panels(dir.resolve("efficiency-server-us-per-call.png"), panels));
    }
    if (!clients.isEmpty()) {
      String against = " against " + clients.get(0).server() + ", one connection";
      charts.add(
          Charts.panels(
              dir.resolve("efficiency-client-transports.png"),
              List.of(
                  panel(
                      "client CPU per call" + against,
                      "client",
                      "client us/call",
                      clients,
                      r -> LoadMarks.mark(r.scenario().client(), r),
                      Map.of("client us/call", EfficiencyResult::clientUsPerCall)),
                  panel(
                      "median latency" + against,
                      "client",
                      "p50 us",
                      clients,
                      r -> LoadMarks.mark(r.scenario().client(), r),
                      Map.of("p50 us", EfficiencyResult::p50Us)))));
    }
    return charts;
  }

  private static Charts.Panel panel(
      String title,
      String xTitle,
      String yTitle,
      List<EfficiencyResult> rows,
      java.util.function.Function<EfficiencyResult, String> label,
      Map<String, ToDoubleFunction<EfficiencyResult>> metrics) {
    List<String> categories = rows.stream().map(label).toList();
    Map<String, List<Double>> series = new LinkedHashMap<>();
    metrics.forEach(
        (name, metric) -> series.put(name, rows.stream().map(metric::applyAsDouble).toList()));
    // The chart's legend for the mark: an x-axis title is the one line every panel has.
    String x = LoadMarks.anyDisturbed(rows) ? xTitle + " (" + LoadMarks.CHART_LEGEND + ")" : xTitle;
    return new Charts.Panel(title + " (lower is better)", x, yTitle, categories, series);
  }
}
