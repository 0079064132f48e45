package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The control channel's {@code cpu} answer, which the efficiency command reads per window. */
class ServeControlTest {

  private static final Pattern CPU =
      Pattern.compile("cpu process_ns=(-?\\d+) alloc_bytes=(-?\\d+) completed=(-?\\d+)");

  @Test
  void cpuAnswersCpuTimeAllocatedBytesAndCompletedCalls() throws Exception {
    RunningServer stock =
        new RunningServer() {
          @Override
          public InetSocketAddress address() {
            return new InetSocketAddress("127.0.0.1", 1);
          }

          @Override
          public void close() {}
        };
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    ServeControl.answer(stock, new BufferedReader(new StringReader("cpu\nnope\n")), out);

    String[] lines = bytes.toString(StandardCharsets.UTF_8).split("\n");
    Matcher m = CPU.matcher(lines[0]);
    assertThat(m.matches()).as(lines[0]).isTrue();
    assertThat(Long.parseLong(m.group(1))).isPositive();
    assertThat(Long.parseLong(m.group(2))).isPositive();
    assertThat(m.group(3)).isEqualTo("-1"); // a stock row keeps no counters
    assertThat(lines[1]).isEqualTo("end");
    assertThat(lines[2])
        .isEqualTo("error unknown request: nope (expected: stats, stats-gc, cpu or handler)");
  }
}
