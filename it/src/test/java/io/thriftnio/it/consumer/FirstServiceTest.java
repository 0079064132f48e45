package io.thriftnio.it.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * README's "Your first service", as a newcomer runs it, from an empty directory: copy {@code
 * samples/first-service}, generate the code with README's compiler command, build with the Maven
 * Wrapper against this build's artifacts (staged under {@code target/}, never {@code ~/.m2}), start
 * the server, call it through the sync and the async pool, stop it.
 *
 * <p>Needs a Thrift compiler of {@value ThriftCompiler#OLDEST} or newer ({@code $THRIFT} or {@code
 * thrift} on the {@code PATH}); without one it is skipped, saying why, unless {@code
 * THRIFTNIO_REQUIRE_THRIFT=1} makes that a failure.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class FirstServiceTest {

  /**
   * README's generation command, run in the project's directory: {@code future_iface} adds the
   * {@code FutureIface} the pools' {@code futureIface} proxies implement.
   */
  static final String GENERATE =
      "thrift --gen java:future_iface,generated_annotations=suppress"
          + " -out src/main/java src/main/thrift/kv.thrift";

  private static final Pattern LISTENING = Pattern.compile("listening on port (\\d+)");

  @Test
  void generateBuildServeAndCallThroughBothPools(@TempDir Path dir) throws Exception {
    ThriftCompiler thrift = compilerOrSkip();
    assertThat(Files.readString(StagingRepository.reactorRoot().resolve("README.md")))
        .as("README shows the generation command this test runs")
        .contains(GENERATE);

    Path project = dir.resolve("first-service");
    ConsumerBuild.copyTree(
        StagingRepository.reactorRoot().resolve("samples/first-service"), project);
    List<String> command = new java.util.ArrayList<>(List.of(GENERATE.split(" ")));
    command.set(0, thrift.executable().toString());
    ConsumerBuild.run(project, Duration.ofMinutes(1), command.toArray(String[]::new));
    assertThat(project.resolve("src/main/java/example/kv/KeyValue.java"))
        .content()
        .as("generated with future_iface")
        .contains("public interface FutureIface");

    ConsumerBuild.mvnwPackage(project, StagingRepository.stage(dir.resolve("repo")));

    Process server =
        new ProcessBuilder(
                ConsumerBuild.java(), "-cp", "target/first-service.jar", "example.KvServer", "0")
            .directory(project.toFile())
            .redirectErrorStream(true)
            .start();
    List<String> serverOutput = new CopyOnWriteArrayList<>();
    CompletableFuture<Integer> port = new CompletableFuture<>();
    Thread reader = new Thread(() -> readLines(server, serverOutput, port), "kv-server-output");
    reader.start();
    try {
      int p = port.get(2, TimeUnit.MINUTES);
      List<String> client =
          ConsumerBuild.run(
              project,
              Duration.ofMinutes(2),
              ConsumerBuild.java(),
              "-cp",
              "target/first-service.jar",
              "example.KvClient",
              String.valueOf(p));
      assertThat(client)
          .containsSubsequence("sync get: hello", "sync not found: nobody", "async get: 42");

      server.getOutputStream().close(); // end of input: the server closes gracefully
      assertThat(server.waitFor(1, TimeUnit.MINUTES))
          .as("server stopped; output: %s", serverOutput)
          .isTrue();
      reader.join(TimeUnit.SECONDS.toMillis(10));
      assertThat(server.exitValue()).as("server output: %s", serverOutput).isZero();
      assertThat(serverOutput).contains("stopped");
    } finally {
      server.destroyForcibly();
    }
  }

  private static ThriftCompiler compilerOrSkip() throws Exception {
    StringBuilder why = new StringBuilder();
    Optional<ThriftCompiler> found = ThriftCompiler.find(why);
    if (found.isEmpty()) {
      if ("1".equals(System.getenv("THRIFTNIO_REQUIRE_THRIFT"))) {
        fail("THRIFTNIO_REQUIRE_THRIFT=1, but " + why);
      }
      Assumptions.abort("SKIPPED: " + why);
    }
    return found.get();
  }

  private static void readLines(Process p, List<String> lines, CompletableFuture<Integer> port) {
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        lines.add(line);
        Matcher m = LISTENING.matcher(line);
        if (m.find()) {
          port.complete(Integer.parseInt(m.group(1)));
        }
      }
      port.completeExceptionally(new IllegalStateException("server printed no port: " + lines));
    } catch (java.io.IOException e) {
      port.completeExceptionally(e);
    }
  }
}
