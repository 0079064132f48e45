package io.thriftnio.it.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compiles the quick start in README.md exactly as written and runs it, so the README cannot drift
 * from the API: a renamed method breaks the build here, not a user's first hour.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QuickStartTest {

  private static final Pattern QUICK_START =
      Pattern.compile(
          "<!-- quickstart:begin -->\\s*```java\\n(.*?)```\\s*<!-- quickstart:end -->",
          Pattern.DOTALL);

  @Test
  void readmeQuickStartCompilesAndRunsAsDocumented(@TempDir Path dir) throws Exception {
    String readme = Files.readString(Path.of("..", "docs", "guide", "clients.md"));
    List<String> lines = compileAndRun(quickStart(readme), dir);
    assertThat(lines)
        .containsExactly(
            "last sale: TradeReport(symbol:ACME, price:25.5, size:100, seq_num:1)",
            "echo: hello",
            "db_work rows: 3");
    assertThat(readme).contains(String.join("\n", lines));
  }

  /** The README's promise: the clients move to Grizzly by changing the one line it points at. */
  @Test
  void switchingTheClientsToGrizzlyChangesOneLine(@TempDir Path dir) throws Exception {
    String source = quickStart(Files.readString(Path.of("..", "docs", "guide", "clients.md")));
    String line = "try (ClientResources resources = NettyClientResources.create();";
    assertThat(source).containsOnlyOnce(line);
    String grizzly =
        source
            .replace(line, "try (ClientResources resources = GrizzlyClientResources.create();")
            .replace(
                "import io.thriftnio.netty.NettyClientResources;",
                "import io.thriftnio.grizzly.GrizzlyClientResources;");
    assertThat(compileAndRun(grizzly, dir)).contains("db_work rows: 3");
  }

  private static String quickStart(String readme) {
    Matcher m = QUICK_START.matcher(readme);
    assertThat(m.find()).as("README.md has a quickstart block").isTrue();
    return m.group(1);
  }

  private List<String> compileAndRun(String code, Path dir) throws Exception {
    return ReadmeCode.compileAndRun(code, "QuickStart", dir);
  }
}
