package io.thriftnio.it.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Compiles and runs README's Grizzly client on a filter chain of the user's own, as written. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClientChainSnippetTest {

  private static final Pattern SNIPPET =
      Pattern.compile(
          "<!-- client-chain:begin -->\\s*```java\\n(.*?)```\\s*<!-- client-chain:end -->",
          Pattern.DOTALL);

  @Test
  void readmeClientChainCompilesAndRuns(@TempDir Path dir) throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"));
    Matcher m = SNIPPET.matcher(readme);
    assertThat(m.find()).as("README.md has a client-chain block").isTrue();
    Path source = dir.resolve("ClientChain.java");
    Files.writeString(source, m.group(1));
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
    int rc =
        javac.run(
            null,
            diagnostics,
            diagnostics,
            "-classpath",
            System.getProperty("java.class.path"),
            "-d",
            dir.toString(),
            source.toString());
    assertThat(rc).as("javac output:%n%s", diagnostics).isZero();
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream original = System.out;
    try (URLClassLoader loader =
        new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
      Method main = loader.loadClass("ClientChain").getMethod("main", String[].class);
      System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
      main.invoke(null, (Object) new String[0]);
    } finally {
      System.setOut(original);
    }
    assertThat(printed.toString(StandardCharsets.UTF_8).lines())
        .containsExactly("last sale: CHAIN");
    assertThat(readme).contains("It prints `last sale: CHAIN`.");
  }
}
