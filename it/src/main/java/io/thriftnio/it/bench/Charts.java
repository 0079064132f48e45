package io.thriftnio.it.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * PNG charts of a run (XChart, rendered headless):
 *
 * <ul>
 *   <li>{@code calls-by-server-SIZE-PROTOCOL.png}: calls/s of every server row, one bar per client
 *       kind, at the largest connection count measured for that size;
 *   <li>{@code calls-by-connections-SIZE-PROTOCOL-CLIENT.png}: calls/s against the connection
 *       count, one line per server row, where more than one count was measured.
 * </ul>
 */
final class Charts {

  private static final int WIDTH = 1100;
  private static final int HEIGHT = 650;
  private static final int PANEL_HEIGHT = 420;

  private Charts() {}

  static List<Path> writeAll(Path dir, List<CellResult> results) throws IOException {
    System.setProperty("java.awt.headless", "true");
    List<Path> written = new ArrayList<>();
    Map<String, List<CellResult>> bySizeProtocol = new LinkedHashMap<>();
    for (CellResult r : results) {
      if (r.ran()) {
        String key = r.size() + "|" + r.protocol();
        bySizeProtocol.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
      }
    }
    for (List<CellResult> group : bySizeProtocol.values()) {
      CellResult first = group.get(0);
      written.add(byServer(dir, first.size(), first.protocol(), group));
      Set<String> clients = new LinkedHashSet<>();
      group.forEach(r -> clients.add(r.client()));
      for (String client : clients) {
        List<CellResult> ofClient = group.stream().filter(r -> r.client().equals(client)).toList();
        if (ofClient.stream().map(CellResult::connections).distinct().count() > 1) {
          written.add(byConnections(dir, first.size(), first.protocol(), client, ofClient));
        }
      }
    }
    return written;
  }

  private static Path byServer(Path dir, String size, String protocol, List<CellResult> group)
      throws IOException {
    int connections = group.stream().mapToInt(CellResult::connections).max().orElse(0);
    List<CellResult> at = group.stream().filter(r -> r.connections() == connections).toList();
    List<String> servers =
        new ArrayList<>(new LinkedHashSet<>(at.stream().map(CellResult::server).toList()));
    Set<String> clients = new LinkedHashSet<>(at.stream().map(CellResult::client).toList());
    CategoryChart chart =
        new CategoryChartBuilder()
            .width(WIDTH)
            .height(HEIGHT)
            .title(
                "calls/s by server: size "
                    + size
                    + ", "
                    + protocol
                    + ", "
                    + connections
                    + " connections")
            .xAxisTitle("server")
            .yAxisTitle("calls/s")
            .build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
    chart.getStyler().setXAxisLabelRotation(30);
    chart.getStyler().setYAxisDecimalPattern("#,###");
    for (String client : clients) {
      List<Double> y = new ArrayList<>();
      for (String server : servers) {
        y.add(
            at.stream()
                .filter(r -> r.server().equals(server) && r.client().equals(client))
                .mapToDouble(CellResult::callsPerSec)
                .findFirst()
                .orElse(0));
      }
      chart.addSeries(client, servers, y);
    }
    Path file = dir.resolve("calls-by-server-" + slug(size) + "-" + protocol + ".png");
    save(chart, file);
    return file;
  }

  private static Path byConnections(
      Path dir, String size, String protocol, String client, List<CellResult> group)
      throws IOException {
    XYChart chart =
        new XYChartBuilder()
            .width(WIDTH)
            .height(HEIGHT)
            .title("calls/s by connections: size " + size + ", " + protocol + ", client " + client)
            .xAxisTitle("connections")
            .yAxisTitle("calls/s")
            .build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
    chart.getStyler().setYAxisDecimalPattern("#,###");
    Set<String> servers = new LinkedHashSet<>(group.stream().map(CellResult::server).toList());
    for (String server : servers) {
      TreeSet<Integer> counts = new TreeSet<>();
      Map<Integer, Double> values = new LinkedHashMap<>();
      for (CellResult r : group) {
        if (r.server().equals(server)) {
          counts.add(r.connections());
          values.put(r.connections(), r.callsPerSec());
        }
      }
      double[] x = counts.stream().mapToDouble(Integer::doubleValue).toArray();
      double[] y = counts.stream().mapToDouble(values::get).toArray();
      chart.addSeries(server, x, y);
    }
    Path file =
        dir.resolve(
            "calls-by-connections-" + slug(size) + "-" + protocol + "-" + slug(client) + ".png");
    save(chart, file);
    return file;
  }

  /**
   * A bar chart: one group of bars per category, one bar per series; an unknown (NaN) value is
   * drawn as 0.
   *
   * @param series name to one value per category, in category order
   */
  static Path bars(
      Path file,
      String title,
      String xTitle,
      String yTitle,
      List<String> categories,
      Map<String, List<Double>> series)
      throws IOException {
    System.setProperty("java.awt.headless", "true");
    CategoryChart chart =
        new CategoryChartBuilder()
            .width(WIDTH)
            .height(HEIGHT)
            .title(title)
            .xAxisTitle(xTitle)
            .yAxisTitle(yTitle)
            .build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
    chart.getStyler().setXAxisLabelRotation(30);
    chart.getStyler().setYAxisDecimalPattern("#,##0.#");
    for (Map.Entry<String, List<Double>> e : series.entrySet()) {
      List<Double> y = new ArrayList<>();
      for (Double v : e.getValue()) {
        y.add(v == null || v.isNaN() ? 0.0 : v);
      }
      chart.addSeries(e.getKey(), categories, y);
    }
    save(chart, file);
    return file;
  }

  /**
   * One bar chart with its own y-axis, a panel of {@link #panels}.
   *
   * @param series name to one value per category, in category order; one series hides the legend
   */
  record Panel(
      String title,
      String xTitle,
      String yTitle,
      List<String> categories,
      Map<String, List<Double>> series) {}

  /**
   * Panels stacked in one PNG, each with its own y-axis, so that values of different sizes (0.5 us
   * pipelined beside 30 us sequential, or CPU time beside latency) each fill their own panel.
   */
  static Path panels(Path file, List<Panel> panels) throws IOException {
    System.setProperty("java.awt.headless", "true");
    List<CategoryChart> charts = new ArrayList<>();
    for (Panel p : panels) {
      CategoryChart chart =
          new CategoryChartBuilder()
              .width(WIDTH)
              .height(PANEL_HEIGHT)
              .title(p.title())
              .xAxisTitle(p.xTitle())
              .yAxisTitle(p.yTitle())
              .build();
      chart.getStyler().setLegendVisible(p.series().size() > 1);
      chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
      chart.getStyler().setXAxisLabelRotation(30);
      chart.getStyler().setYAxisDecimalPattern("#,##0.##");
      for (Map.Entry<String, List<Double>> e : p.series().entrySet()) {
        List<Double> y = new ArrayList<>();
        for (Double v : e.getValue()) {
          y.add(v == null || v.isNaN() ? 0.0 : v);
        }
        chart.addSeries(e.getKey(), p.categories(), y);
      }
      charts.add(chart);
    }
    String name = file.toString();
    BitmapEncoder.saveBitmap(
        charts,
        charts.size(),
        1,
        name.substring(0, name.length() - ".png".length()),
        BitmapEncoder.BitmapFormat.PNG);
    return file;
  }

  private static void save(org.knowm.xchart.internal.chartpart.Chart<?, ?> chart, Path file)
      throws IOException {
    String name = file.toString();
    BitmapEncoder.saveBitmap(
        chart, name.substring(0, name.length() - ".png".length()), BitmapEncoder.BitmapFormat.PNG);
  }

  static String slug(String s) {
    return s.replaceAll("[^A-Za-z0-9.-]+", "_").replaceAll("^_+|_+$", "");
  }
}
