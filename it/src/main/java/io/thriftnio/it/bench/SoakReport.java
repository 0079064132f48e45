package io.thriftnio.it.bench;

import io.thriftnio.grizzly.internal.GrizzlyMemory;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;
import org.HdrHistogram.Histogram;
import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * What a soak run measured: the samples ({@code samples.csv}), a chart of them ({@code soak.png}:
 * calls/s, errors, heap, descriptors and threads over time, restarts drawn as vertical lines) and
 * the summary ({@code summary.md}, also printed).
 */
final class SoakReport {

  /**
   * What the JVM held with nothing of the run open: before it, and after it closed. {@code
   * bufferPool} is the part of the heap Grizzly's shared buffer pool holds ({@link
   * GrizzlyMemory#pooledBytes()}): it stays once a Grizzly server has run, up to its bound, and is
   * not a leak; {@link #heapBeyondPool()} is the rest, which the heap finding compares.
   */
  record Baseline(long heapAfterGc, long bufferPool, int fds, int threads) {
    static Baseline now() {
      long heap = JvmStats.heapUsedAfterGc();
      return new Baseline(
          heap, GrizzlyMemory.pooledBytes(), JvmStats.openFds(), JvmStats.threadCount());
    }

    long heapBeyondPool() {
      return heapAfterGc - bufferPool;
    }
  }

  /** One sampling point; counts are cumulative, gauges are now. */
  record Sample(
      double seconds,
      long ok,
      long errors,
      long errorsOutside,
      long errorsGraceful,
      double p99Millis,
      long heapUsed,
      int fds,
      int threads,
      long serverOpen,
      long serverAccepted,
      long serverCompleted,
      long serverFailed,
      int syncPoolOpen,
      int asyncPoolOpen,
      String events) {

    String progressLine() {
      return String.format(
          Locale.ROOT,
          "soak: %6.0fs ok %,d errors %,d (outside fault windows %,d, in graceful restarts %,d) "
              + "p99 %.1f ms heap %.0f MiB fds %d threads %d server open %d pools %d+%d %s",
          seconds,
          ok,
          errors,
          errorsOutside,
          errorsGraceful,
          p99Millis,
          JvmStats.mib(heapUsed),
          fds,
          threads,
          serverOpen,
          syncPoolOpen,
          asyncPoolOpen,
          events);
    }
  }

  /**
   * One restart: when, how long closing took, how long the server was down; {@code graceful} names
   * the server of a rolling round's graceful restart, and is null for a restart of the one server.
   */
  record Restart(double atSeconds, double stopMillis, double downMillis, String graceful) {
    String line() {
      return String.format(
          Locale.ROOT,
          "%s at %.0fs: close took %.0f ms%s, down %.0f ms",
          graceful == null ? "restart" : "graceful restart of " + graceful,
          atSeconds,
          stopMillis,
          graceful == null ? "" : " (deregister, grace, drain)",
          downMillis);
    }
  }

  private final String server;
  private final SoakCommand options;
  private final String overload; // null unless the configuration overloads the server by design
  private final Baseline before;
  private final int syncConnections;
  private final int asyncConnections;
  private final Duration grace;
  private final List<Sample> samples = new ArrayList<>(); // guarded by this
  private final List<Restart> restarts = new ArrayList<>(); // guarded by this
  private final List<String> serverKills = new ArrayList<>(); // guarded by this
  private SoakRecorder recorder;
  private int kills;
  private int killed;
  private String poolStats;
  private long[] serverTotals;
  private double seconds;
  private Baseline after;
  private double quietAtEndSeconds;
  private final double quietLimitSeconds;

  SoakReport(
      String server,
      SoakCommand options,
      Baseline before,
      int syncConnections,
      int asyncConnections,
      Duration grace,
      String overload) {
    this.server = server;
    this.overload = overload;
    this.options = options;
    this.before = before;
    this.syncConnections = syncConnections;
    this.asyncConnections = asyncConnections;
    this.grace = grace;
    // The callers pause between calls; a restart at the very end may leave the server down.
    this.quietLimitSeconds =
        grace.toNanos() / 1e9
            + options.restartPause.toNanos() / 1e9
            + 2 * options.think.toNanos() / 1e9
            + 1;
  }

  synchronized void add(Sample s) {
    samples.add(s);
  }

  /** Seconds since the last sample, or the time since the start if none. */
  synchronized double sinceLastSample(double nowSeconds) {
    return samples.isEmpty() ? nowSeconds : nowSeconds - samples.get(samples.size() - 1).seconds();
  }

  synchronized void serverKilled(String line) {
    serverKills.add(line);
  }

  synchronized void restart(Restart r) {
    restarts.add(r);
  }

  synchronized void finished(
      SoakRecorder recorder,
      int kills,
      int killed,
      String poolStats,
      long[] serverTotals,
      double seconds,
      double quietAtEndSeconds) {
    this.quietAtEndSeconds = quietAtEndSeconds;
    this.recorder = recorder;
    this.kills = kills;
    this.killed = killed;
    this.poolStats = poolStats;
    this.serverTotals = serverTotals;
    this.seconds = seconds;
  }

  synchronized void after(Baseline after) {
    this.after = after;
  }

  /** What needs explaining: empty when the run was clean. */
  synchronized List<String> findings() {
    List<String> f = new ArrayList<>();
    long outside = recorder.errors(SoakRecorder.Window.NONE);
    if (outside > 0) {
      f.add(
          outside
              + " errors outside every fault window: "
              + recorder.errorsByKind(SoakRecorder.Window.NONE));
    }
    if (recorder.badReplies() > 0) {
      f.add(recorder.badReplies() + " wrong replies");
    }
    if (recorder.slowAnswered() > 0) {
      f.add(
          String.format(
              Locale.ROOT,
              "%d slow calls (sleep %d ms) got a reply: the call timeout did not end them (%s;"
                  + " the longest %,.0f ms after it started)",
              recorder.slowAnswered(),
              options.slowMillis(),
              recorder.slowAnsweredByPool(),
              recorder.slowAnsweredLongestNanos() / 1e6));
    }
    long liveEjections = recorder.ejections(SoakRecorder.Window.NONE);
    if (liveEjections > 0) {
      f.add(liveEjections + " ejections outside every fault window (of a live server)");
    }
    long graceful = recorder.errors(SoakRecorder.Window.GRACEFUL);
    if (graceful > 0) {
      f.add(
          graceful
              + " errors during graceful restarts: "
              + recorder.errorsByKind(SoakRecorder.Window.GRACEFUL));
    }
    long plainRestarts = restarts.stream().filter(r -> r.graceful() == null).count();
    if (plainRestarts > 0 && recorder.recoveries().size() < plainRestarts) {
      f.add(
          "calls resumed after "
              + recorder.recoveries().size()
              + " of "
              + plainRestarts
              + " restarts");
    }
    if (quietAtEndSeconds > quietLimitSeconds) {
      f.add(
          String.format(
              Locale.ROOT, "no call succeeded in the last %.1f s of the run", quietAtEndSeconds));
    }
    if (after != null && after.fds() > before.fds() + SoakCommand.FD_TOLERANCE) {
      f.add("descriptors after the run " + after.fds() + " vs " + before.fds() + " before");
    }
    if (after != null && heapGrew()) {
      f.add(
          String.format(
              Locale.ROOT,
              "heap after GC after the run %.1f MiB vs %.1f MiB before%s",
              JvmStats.mib(after.heapAfterGc()),
              JvmStats.mib(before.heapAfterGc()),
              after.bufferPool() == 0
                  ? ""
                  : String.format(
                      Locale.ROOT,
                      " (%.1f MiB vs %.1f MiB without Grizzly's buffer pool)",
                      JvmStats.mib(after.heapBeyondPool()),
                      JvmStats.mib(before.heapBeyondPool()))));
    }
    if (after != null && after.bufferPool() > GrizzlyMemory.maxPooledBytes()) {
      f.add(
          String.format(
              Locale.ROOT,
              "Grizzly's buffer pool holds %.1f MiB, over its bound of %.1f MiB",
              JvmStats.mib(after.bufferPool()),
              JvmStats.mib(GrizzlyMemory.maxPooledBytes())));
    }
    return f;
  }

  /**
   * Whether the heap after GC stayed above its baseline by more than the tolerance once everything
   * closed, leaving out what Grizzly's buffer pool holds (bounded, kept for the next server).
   */
  private boolean heapGrew() {
    return after.heapBeyondPool() > before.heapBeyondPool() + SoakCommand.HEAP_TOLERANCE_BYTES;
  }

  synchronized String summary(Instant started) {
    StringBuilder sb = new StringBuilder();
    long ok = recorder.okCalls();
    long errors = recorder.errors();
    sb.append(
        String.format(
            Locale.ROOT,
            "## soak: %s, %,d connections (%,d sync, %,d async), " + "%.0f s%n%n",
            server,
            syncConnections + asyncConnections,
            syncConnections,
            asyncConnections,
            seconds));
    boolean rolling = "zookeeper".equals(options.discovery);
    sb.append(
        String.format(
            Locale.ROOT,
            "Started %s; clients and servers in one JVM (%s). "
                + "%s%s, %s every %s (down %s), fault grace %s, think "
                + "%s, call timeout %s.%n%n",
            started,
            Reports.machine(),
            rolling
                ? String.format(
                    Locale.ROOT,
                    "%d servers registered in an embedded ZooKeeper, pools following it; "
                        + "deregister grace %s. ",
                    options.servers,
                    options.deregisterGrace)
                : "",
            options.killEvery.isZero() || options.killCount == 0
                ? "No connection kills"
                : "Kill " + options.killCount + " connections every " + options.killEvery,
            rolling ? "a rolling graceful restart of each server" : "restart",
            options.restartEvery,
            options.restartPause,
            grace,
            options.think,
            options.callTimeout));
    if (options.slowShare > 0) {
      sb.append(
          String.format(
              Locale.ROOT,
              "Slow calls: %s%% of the calls sleep %d ms, past the call timeout; they are expected"
                  + " to time out and are not errors.%n%n",
              options.slowSharePercent(),
              options.slowMillis()));
    }
    sb.append("| | value |\n|---|---:|\n");
    line(sb, "calls ok", String.format(Locale.ROOT, "%,d", ok));
    line(sb, "calls/s (mean)", String.format(Locale.ROOT, "%,.0f", ok / Math.max(seconds, 1e-9)));
    line(sb, "errors", String.format(Locale.ROOT, "%,d", errors));
    line(
        sb,
        "errors in restart windows (calls lost around restarts)",
        String.format(Locale.ROOT, "%,d", recorder.errors(SoakRecorder.Window.RESTART)));
    if (rolling) {
      line(
          sb,
          "**errors during graceful restarts**",
          String.format(Locale.ROOT, "**%,d**", recorder.errors(SoakRecorder.Window.GRACEFUL)));
    }
    line(
        sb,
        "errors in kill windows",
        String.format(Locale.ROOT, "%,d", recorder.errors(SoakRecorder.Window.KILL)));
    line(
        sb,
        "**errors outside fault windows**",
        String.format(Locale.ROOT, "**%,d**", recorder.errors(SoakRecorder.Window.NONE)));
    line(sb, "wrong replies", String.format(Locale.ROOT, "%,d", recorder.badReplies()));
    if (options.slowShare > 0) {
      line(
          sb,
          "slow calls timed out (expected; not errors)",
          String.format(Locale.ROOT, "%,d", recorder.slowTimedOut()));
      line(
          sb,
          "**slow calls answered (the call timeout did not end them)**",
          String.format(Locale.ROOT, "**%,d**", recorder.slowAnswered()));
    }
    if (options.slowShare > 0 || recorder.timedOutBehind() > 0) {
      line(
          sb,
          "calls timed out behind another timed-out call (head-of-line; not errors)",
          String.format(Locale.ROOT, "%,d", recorder.timedOutBehind()));
    }
    line(
        sb,
        "**ejections outside fault windows (of a live server)**",
        String.format(Locale.ROOT, "**%,d**", recorder.ejections(SoakRecorder.Window.NONE)));
    line(
        sb,
        "ejections in restart / kill / graceful restart windows",
        String.format(
            Locale.ROOT,
            "%,d / %,d / %,d",
            recorder.ejections(SoakRecorder.Window.RESTART),
            recorder.ejections(SoakRecorder.Window.KILL),
            recorder.ejections(SoakRecorder.Window.GRACEFUL)));
    line(sb, "restarts", String.valueOf(restarts.size()));
    line(sb, "kills (connections aborted)", kills + " (" + killed + ")");
    if (!serverKills.isEmpty()) {
      line(sb, "servers killed (SIGKILL, no deregistration)", String.valueOf(serverKills.size()));
    }
    List<Long> rec = recorder.recoveries();
    if (!rolling) {
      line(
          sb,
          "first ok call after restart (ms)",
          rec.stream().map(n -> String.format(Locale.ROOT, "%.0f", n / 1e6)).toList().toString());
    }
    line(
        sb,
        "server: accepted / completed / failed / rejected (all servers)",
        String.format(
            Locale.ROOT,
            "%,d / %,d / %,d / %,d",
            serverTotals[0],
            serverTotals[1],
            serverTotals[2],
            serverTotals[3]));
    sb.append(
        "\n| latency of ok calls (ms) | calls | p50 | p99 | p99.9 | max |\n"
            + "|---|---:|---:|---:|---:|---:|\n");
    for (SoakRecorder.Phase p : SoakRecorder.Phase.values()) {
      if (!rolling && p != SoakRecorder.Phase.BEFORE) {
        break; // one phase only: the recorder's phases follow the rolling rounds
      }
      Histogram h = recorder.latencies(p);
      String what =
          switch (p) {
            case BEFORE -> rolling ? "before the first rolling round" : "all";
            case DURING -> "during rolling rounds";
            case AFTER -> "after the first rolling round, between rounds";
          };
      if (h.getTotalCount() == 0) {
        sb.append("| ").append(what).append(" | 0 | | | | |\n");
        continue;
      }
      sb.append(
          String.format(
              Locale.ROOT,
              "| %s | %,d | %.1f | %.1f | %.1f | %.1f |%n",
              what,
              h.getTotalCount(),
              h.getValueAtPercentile(50) / 1e6,
              h.getValueAtPercentile(99) / 1e6,
              h.getValueAtPercentile(99.9) / 1e6,
              h.getMaxValue() / 1e6));
    }
    Sample first = samples.isEmpty() ? null : samples.get(0);
    Sample last = samples.isEmpty() ? null : samples.get(samples.size() - 1);
    long maxHeap = samples.stream().mapToLong(Sample::heapUsed).max().orElse(0);
    int maxFds = samples.stream().mapToInt(Sample::fds).max().orElse(0);
    int maxThreads = samples.stream().mapToInt(Sample::threads).max().orElse(0);
    sb.append("\n| JVM (client + server) | before | first sample | max | last sample | after |\n");
    sb.append("|---|---:|---:|---:|---:|---:|\n");
    sb.append(
        String.format(
            Locale.ROOT,
            "| heap used (MiB) | %.1f (after GC) | %.1f | %.1f | " + "%.1f | %.1f (after GC) |%n",
            JvmStats.mib(before.heapAfterGc()),
            first == null ? 0 : JvmStats.mib(first.heapUsed()),
            JvmStats.mib(maxHeap),
            last == null ? 0 : JvmStats.mib(last.heapUsed()),
            JvmStats.mib(after.heapAfterGc())));
    sb.append(
        String.format(
            Locale.ROOT,
            "| open descriptors | %d | %d | %d | %d | %d |%n",
            before.fds(),
            first == null ? 0 : first.fds(),
            maxFds,
            last == null ? 0 : last.fds(),
            after.fds()));
    sb.append(
        String.format(
            Locale.ROOT,
            "| threads | %d | %d | %d | %d | %d |%n",
            before.threads(),
            first == null ? 0 : first.threads(),
            maxThreads,
            last == null ? 0 : last.threads(),
            after.threads()));
    sb.append(
        String.format(
            Locale.ROOT,
            "%nDescriptors back to baseline (within %d): %s. "
                + "Heap after GC back to baseline (within %d MiB): %s.%n",
            SoakCommand.FD_TOLERANCE,
            after.fds() <= before.fds() + SoakCommand.FD_TOLERANCE ? "yes" : "**no**",
            SoakCommand.HEAP_TOLERANCE_BYTES / (1024 * 1024),
            heapGrew() ? "**no**" : "yes"));
    if (after.bufferPool() > 0) {
      sb.append(
          String.format(
              Locale.ROOT,
              "Grizzly's buffer pool holds %.1f MiB of the heap after the run (its bound: %.1f MiB;"
                  + " %.1f MiB before), not counted as growth: heap after GC without it %.1f MiB"
                  + " (%.1f MiB before).%n",
              JvmStats.mib(after.bufferPool()),
              JvmStats.mib(GrizzlyMemory.maxPooledBytes()),
              JvmStats.mib(before.bufferPool()),
              JvmStats.mib(after.heapBeyondPool()),
              JvmStats.mib(before.heapBeyondPool())));
    }
    for (SoakRecorder.Window w : SoakRecorder.Window.values()) {
      Map<String, Long> byKind = recorder.errorsByKind(w);
      if (!byKind.isEmpty()) {
        sb.append("\nErrors ")
            .append(
                switch (w) {
                  case RESTART -> "in restart windows";
                  case KILL -> "in kill windows";
                  case GRACEFUL -> "DURING GRACEFUL RESTARTS";
                  case NONE -> "OUTSIDE fault windows";
                })
            .append(" by kind:\n\n");
        byKind.forEach((k, v) -> sb.append(String.format(Locale.ROOT, "- %s: %,d%n", k, v)));
      }
    }
    Map<String, String> examples = recorder.examples();
    if (!examples.isEmpty()) {
      sb.append("\nFirst message of each kind:\n\n");
      examples.forEach(
          (k, v) ->
              sb.append("- ")
                  .append(k)
                  .append(": `")
                  .append(v.replace('`', '\'').replace('\n', ' '))
                  .append("`\n"));
    }
    if (!serverKills.isEmpty()) {
      sb.append(
          "\nServer kills (its calls count in kill windows; its own counts are not in the"
              + " server totals):\n\n");
      serverKills.forEach(k -> sb.append("- ").append(k).append('\n'));
    }
    if (!restarts.isEmpty()) {
      sb.append("\nRestarts:\n\n");
      restarts.forEach(r -> sb.append("- ").append(r.line()).append('\n'));
    }
    sb.append("\nPools at the end: ").append(poolStats).append('\n');
    List<String> findings = findings();
    sb.append("\nFindings: ").append(findings.isEmpty() ? "none" : "").append('\n');
    findings.forEach(f -> sb.append("- ").append(f).append('\n'));
    if (overload != null) {
      sb.append("\nOverload by configuration: ").append(overload).append('\n');
    }
    sb.append('\n');
    return sb.toString();
  }

  private static void line(StringBuilder sb, String what, String value) {
    sb.append("| ").append(what).append(" | ").append(value).append(" |\n");
  }

  synchronized List<Path> writeAll(Path dir, String summary) throws IOException {
    Files.createDirectories(dir);
    List<Path> written = new ArrayList<>();
    written.add(write(dir.resolve("summary.md"), summary));
    written.add(write(dir.resolve("samples.csv"), csv()));
    Path png = dir.resolve("soak.png");
    chart(png);
    written.add(png);
    return written;
  }

  private String csv() {
    StringBuilder sb =
        new StringBuilder(
            "seconds,calls_ok,calls_per_s,errors,errors_in_interval,errors_outside_fault_windows,"
                + "errors_in_graceful_restarts,p99_ms,heap_used_mib,fds,threads,server_open,server_accepted,server_completed,"
                + "server_failed,sync_pool_open,async_pool_open,events\n");
    Sample prev = null;
    for (Sample s : samples) {
      double dt = prev == null ? s.seconds() : s.seconds() - prev.seconds();
      long dOk = s.ok() - (prev == null ? 0 : prev.ok());
      long dErr = s.errors() - (prev == null ? 0 : prev.errors());
      sb.append(
          String.format(
              Locale.ROOT,
              "%.1f,%d,%.0f,%d,%d,%d,%d,%.2f,%.1f,%d,%d,%d,%d,%d,%d,%d,%d,%s%n",
              s.seconds(),
              s.ok(),
              dt > 0 ? dOk / dt : 0,
              s.errors(),
              dErr,
              s.errorsOutside(),
              s.errorsGraceful(),
              s.p99Millis(),
              JvmStats.mib(s.heapUsed()),
              s.fds(),
              s.threads(),
              s.serverOpen(),
              s.serverAccepted(),
              s.serverCompleted(),
              s.serverFailed(),
              s.syncPoolOpen(),
              s.asyncPoolOpen(),
              s.events()));
      prev = s;
    }
    return sb.toString();
  }

  private void chart(Path file) throws IOException {
    System.setProperty("java.awt.headless", "true");
    int n = samples.size();
    double[] t = new double[n];
    double[] rate = new double[n];
    double[] errors = new double[n];
    double[] outside = new double[n];
    double[] heap = new double[n];
    double[] fds = new double[n];
    double[] threads = new double[n];
    double[] p99 = new double[n];
    double[] graceful = new double[n];
    Sample prev = null;
    for (int i = 0; i < n; i++) {
      Sample s = samples.get(i);
      double dt = prev == null ? s.seconds() : s.seconds() - prev.seconds();
      t[i] = s.seconds();
      rate[i] = dt > 0 ? (s.ok() - (prev == null ? 0 : prev.ok())) / dt : 0;
      errors[i] = s.errors() - (prev == null ? 0 : prev.errors());
      outside[i] = s.errorsOutside() - (prev == null ? 0 : prev.errorsOutside());
      heap[i] = JvmStats.mib(s.heapUsed());
      fds[i] = s.fds();
      threads[i] = s.threads();
      p99[i] = s.p99Millis();
      graceful[i] = s.errorsGraceful() - (prev == null ? 0 : prev.errorsGraceful());
      prev = s;
    }
    if (n == 0) {
      t = new double[] {0};
      rate = errors = outside = heap = fds = threads = p99 = graceful = new double[] {0};
    }
    XYChart calls = chart("calls/s (ok)", "calls/s");
    add(calls, "calls/s", t, rate);
    XYChart err = chart("errors per sampling interval", "errors");
    add(err, "all errors", t, errors);
    add(err, "outside fault windows", t, outside);
    if ("zookeeper".equals(options.discovery)) {
      add(err, "in graceful restarts", t, graceful);
    }
    XYChart latency = chart("p99 latency of ok calls per sampling interval (ms)", "ms");
    latency.getStyler().setYAxisDecimalPattern("#,##0.#");
    add(latency, "p99", t, p99);
    XYChart mem = chart("heap used (MiB, no forced GC)", "MiB");
    add(mem, "heap used", t, heap);
    XYChart fd = chart("open descriptors and threads", "count");
    add(fd, "descriptors", t, fds);
    add(fd, "threads", t, threads);
    int w = 800;
    int h = 420;
    BufferedImage image = new BufferedImage(2 * w, 3 * h, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, 2 * w, 3 * h);
    XYChart[] charts = {calls, latency, err, mem, fd};
    for (int i = 0; i < charts.length; i++) {
      for (Restart r : restarts) {
        charts[i].addAnnotation(new AnnotationLine(r.atSeconds(), true, false));
      }
      g.drawImage(BitmapEncoder.getBufferedImage(charts[i]), (i % 2) * w, (i / 2) * h, null);
    }
    g.dispose();
    ImageIO.write(image, "png", file.toFile());
  }

  private XYChart chart(String title, String yTitle) {
    XYChart c =
        new XYChartBuilder()
            .width(800)
            .height(420)
            .title("soak " + server + ": " + title + " (vertical lines: restarts)")
            .xAxisTitle("seconds")
            .yAxisTitle(yTitle)
            .build();
    c.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
    c.getStyler().setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
    c.getStyler().setYAxisDecimalPattern("#,###");
    c.getStyler().setYAxisMin(0.0);
    return c;
  }

  private static void add(XYChart c, String name, double[] x, double[] y) {
    c.addSeries(name, x, y).setMarker(SeriesMarkers.NONE);
  }

  private static Path write(Path file, String text) throws IOException {
    Files.writeString(file, text, StandardCharsets.UTF_8);
    return file;
  }
}
