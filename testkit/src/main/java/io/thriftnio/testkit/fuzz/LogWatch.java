package io.thriftnio.testkit.fuzz;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Watches a server's log while open: slf4j-simple's lines (the build sends them to {@code
 * System.out}, looked up at every line) and {@code java.util.logging} records (Grizzly's). Lines
 * are kept, not printed.
 */
public final class LogWatch implements AutoCloseable {

  private final PrintStream original = System.out;
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final Logger root = Logger.getLogger("");
  private final List<LogRecord> severe = new ArrayList<>();
  private final Handler handler =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          if (record.getLevel().intValue() >= Level.SEVERE.intValue()) {
            synchronized (severe) {
              severe.add(record);
            }
          }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  /** Starts watching. */
  public LogWatch() {
    System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    root.addHandler(handler);
  }

  /**
   * The errors logged so far whose exception is not one of {@code expected}: an slf4j {@code ERROR}
   * line is accepted when it or the two lines after it (the stack trace's first line) name an
   * expected type; a {@code SEVERE} record when its exception is an expected type.
   *
   * @param expected simple or full names of the exception types a server may log as errors
   * @return the unexpected errors, each with its first lines
   */
  public List<String> unexpectedErrors(String... expected) {
    List<String> found = new ArrayList<>();
    String[] lines;
    synchronized (bytes) {
      lines = bytes.toString(StandardCharsets.UTF_8).split("\n");
    }
    for (int i = 0; i < lines.length; i++) {
      if (!lines[i].contains(" ERROR ")) {
        continue;
      }
      String context =
          String.join("\n", Arrays.copyOfRange(lines, i, Math.min(lines.length, i + 3)));
      if (!names(context, expected)) {
        found.add(context);
      }
    }
    synchronized (severe) {
      for (LogRecord r : severe) {
        String context =
            r.getLoggerName()
                + ": "
                + r.getMessage()
                + " "
                + (r.getThrown() == null ? "" : r.getThrown());
        if (!names(context, expected)) {
          found.add(context);
        }
      }
    }
    return found;
  }

  private static boolean names(String text, String... expected) {
    for (String type : expected) {
      if (text.contains(type)) {
        return true;
      }
    }
    return false;
  }

  /** Lines logged so far. */
  public long lines() {
    synchronized (bytes) {
      return bytes.toString(StandardCharsets.UTF_8).lines().count();
    }
  }

  @Override
  public void close() {
    System.setOut(original);
    root.removeHandler(handler);
  }
}
