package io.thriftnio.netty;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Captures {@code System.out} while open: where slf4j-simple writes the log in tests (the parent
 * pom sets {@code org.slf4j.simpleLogger.logFile=System.out}, and slf4j-simple looks the stream up
 * at every line). A changed log setup makes a test that expects lines fail, never pass.
 */
final class CapturedOutput implements AutoCloseable {
  private final PrintStream original = System.out;
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

  CapturedOutput() {
    System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
  }

  /** The lines printed so far that contain {@code text}. */
  synchronized List<String> linesContaining(String text) {
    System.out.flush();
    return bytes
        .toString(StandardCharsets.UTF_8)
        .lines()
        .filter(line -> line.contains(text))
        .collect(Collectors.toList());
  }

  @Override
  public void close() {
    System.setOut(original);
  }
}
