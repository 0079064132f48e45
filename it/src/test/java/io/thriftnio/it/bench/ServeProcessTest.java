package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchService;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.transport.TTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code serve} as a real process: it prints its port first, answers calls, and exits on SIGTERM
 * after closing the server.
 */
class ServeProcessTest {

  private static final Pattern LISTENING = Pattern.compile("listening on 127\\.0\\.0\\.1:(\\d+)");

  /**
   * A child that fails before it listens (here a bad argument) fails the start at once with its
   * exit code; before, the start waited out its 60 s for a first line that never came.
   */
  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void aChildThatExitsBeforeListeningFailsTheStartAtOnce() {
    assertThatThrownBy(
            () -> ServeProcess.start(List.of(), List.of("--server", "no-such-server")).close())
        .isInstanceOf(IOException.class)
        .hasMessageContaining("exited with")
        .hasMessageEndingWith("before listening (its stderr above)");
  }

  @ParameterizedTest
  @ValueSource(strings = {"thrift-threaded-selector", "netty", "grizzly"})
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void printsItsPortAnswersAndExitsOnSigterm(String server) throws Exception {
    String missing = Rows.standard().missing(ServeCommand.rowName(server, null));
    org.junit.jupiter.api.Assumptions.assumeTrue(missing == null, () -> server + ": " + missing);

    Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
    List<String> command =
        new ArrayList<>(
            List.of(
                java.toString(),
                "-cp",
                System.getProperty("java.class.path"),
                BenchMain.class.getName(),
                "serve",
                "--server",
                server,
                "--protocol",
                "compact",
                "--port",
                "0",
                "--io-threads",
                "1",
                "--workers",
                "4"));
    Process process =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    try {
      // Drained from the start by one thread: reading a child's pipe while it exits can
      // otherwise fail with "Stream closed".
      BlockingQueue<String> lines = new LinkedBlockingQueue<>();
      Thread reader = new Thread(() -> drain(process, lines), "serve-stdout");
      reader.setDaemon(true);
      reader.start();
      String first = lines.poll(30, TimeUnit.SECONDS);
      Matcher m = LISTENING.matcher(first == null ? "" : first);
      assertThat(m.matches()).as("first line: " + first).isTrue();
      int port = Integer.parseInt(m.group(1));
      assertThat(port).isPositive();

      TTransport transport = StockRows.openFramedSocket(new InetSocketAddress("127.0.0.1", port));
      try {
        BenchService.Client client = new BenchService.Client(new TCompactProtocol(transport));
        ByteBuffer reply = client.echo(Payloads.of(300, 7));
        assertThat(Payloads.check(reply, 300, 7)).isTrue();
        assertThat(client.get_last_sale("ACME").getSymbol()).isEqualTo("ACME");
      } finally {
        transport.close();
      }

      // SIGTERM through the handle: Process.destroy() would also close our end of its stdout.
      assertThat(process.toHandle().destroy()).isTrue();
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("exited after SIGTERM").isTrue();
      // The JVM exits with 128 + 15 after running its shutdown hooks on SIGTERM.
      assertThat(process.exitValue()).isIn(0, 143);
      reader.join(10_000);
      assertThat(new ArrayList<>(lines)).contains("closed");
    } finally {
      process.destroyForcibly();
    }
  }

  private static void drain(Process process, BlockingQueue<String> lines) {
    try (BufferedReader r =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        lines.add(line);
      }
    } catch (IOException e) {
      lines.add("<stdout failed: " + e + ">");
    }
  }
}
