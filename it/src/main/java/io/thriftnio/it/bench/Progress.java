package io.thriftnio.it.bench;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * The live progress line on stderr: cell i of n, elapsed, ETA, last result. On a terminal the line
 * is redrawn in place; otherwise one line is printed per cell.
 */
final class Progress {

  private final PrintWriter out;
  private final boolean inPlace;
  private final int total;
  private final double cellSecondsGuess;
  private final long start = System.nanoTime();
  private int finished;
  private double ranSeconds;
  private int ran;
  private String last = "-";

  Progress(PrintWriter out, boolean inPlace, int total, double cellSecondsGuess) {
    this.out = out;
    this.inPlace = inPlace;
    this.total = total;
    this.cellSecondsGuess = cellSecondsGuess;
  }

  /** A progress line on {@code err}, redrawn in place when a console is attached. */
  static Progress on(PrintWriter err, int total, double cellSecondsGuess) {
    return new Progress(err, System.console() != null, total, cellSecondsGuess);
  }

  synchronized void starting(CellSpec cell) {
    print("cell " + (finished + 1) + "/" + total + " " + cell.label() + " ...", false);
  }

  synchronized void finished(CellResult r, double seconds) {
    finished++;
    if (r.ran()) {
      ran++;
      ranSeconds += seconds;
      last =
          String.format(
              Locale.ROOT,
              "%s %s %s %s x%d: %,.0f calls/s p99 %,d us%s",
              r.server(),
              r.client(),
              r.size(),
              r.protocol(),
              r.connections(),
              r.callsPerSec(),
              r.p99Us(),
              r.errors() + r.checkFailures() > 0
                  ? " errors " + r.errors() + " bad " + r.checkFailures()
                  : "");
    } else {
      out.println(
          (inPlace ? "\r\033[K" : "")
              + "skipped "
              + r.server()
              + " "
              + r.client()
              + " "
              + r.size()
              + " "
              + r.protocol()
              + " x"
              + r.connections()
              + ": "
              + r.skipped());
    }
    print("cell " + finished + "/" + total + " done; last: " + last, !inPlace);
  }

  synchronized void done() {
    if (inPlace) {
      out.println();
    }
    out.flush();
  }

  private void print(String what, boolean newline) {
    double elapsed = (System.nanoTime() - start) / 1e9;
    double perCell = ran > 0 ? ranSeconds / ran : cellSecondsGuess;
    double eta = Math.max(0, (total - finished) * perCell);
    String line = "[" + clock(elapsed) + " elapsed, ETA " + clock(eta) + "] " + what;
    if (inPlace) {
      out.print("\r\033[K" + line);
      if (newline) {
        out.println();
      }
    } else if (newline) {
      out.println(line);
    }
    out.flush();
  }

  static String clock(double seconds) {
    long s = Math.round(seconds);
    return String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, (s / 60) % 60, s % 60);
  }
}
