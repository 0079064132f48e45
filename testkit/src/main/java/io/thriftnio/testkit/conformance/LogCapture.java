package io.thriftnio.testkit.conformance;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Copies {@code System.out}, where slf4j-simple writes the log in tests (the parent pom sets {@code
 * org.slf4j.simpleLogger.logFile=System.out}, level WARN), while passing it on. Close it to stop.
 */
public final class LogCapture implements AutoCloseable {
  private final PrintStream original = System.out;
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

  /** Starts copying {@code System.out}. */
  public LogCapture() {
    OutputStream tee =
        new OutputStream() {
          @Override
          public void write(int b) {
            synchronized (bytes) {
              bytes.write(b);
            }
            original.write(b);
          }

          @Override
          public void write(byte[] b, int off, int len) {
            synchronized (bytes) {
              bytes.write(b, off, len);
            }
            original.write(b, off, len);
          }
        };
    System.setOut(new PrintStream(tee, true, StandardCharsets.UTF_8));
  }

  /** The lines written so far that contain {@code text}. */
  public List<String> linesContaining(String text) {
    String all;
    synchronized (bytes) {
      all = bytes.toString(StandardCharsets.UTF_8);
    }
    return all.lines().filter(l -> l.contains(text)).collect(Collectors.toList());
  }

  @Override
  public void close() {
    System.setOut(original);
  }
}
