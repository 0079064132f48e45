package io.thriftnio.it.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Compiles and runs README's filter-chain and pipeline blocks as written: the Grizzly client on a
 * chain of the user's own, a Grizzly server chain built from a processor, and Netty's handler in a
 * user's pipeline with a protocol factory.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ChainSnippetsTest {

  @ParameterizedTest(name = "{1}")
  @CsvSource({
    "clients.md, client-chain, ClientChain, last sale: CHAIN",
    "servers.md, server-chain, ServerChain, last sale: GRIZZLY",
    "servers.md, netty-pipeline, NettyPipeline, last sale: NETTY"
  })
  void readmeBlockCompilesAndRuns(
      String chapter, String block, String mainClass, String prints, @TempDir Path dir)
      throws Exception {
    String readme = Files.readString(Path.of("..", "docs", "guide", chapter));
    Matcher m =
        Pattern.compile(
                "<!-- " + block + ":begin -->\\s*```java\\n(.*?)```\\s*<!-- " + block + ":end -->",
                Pattern.DOTALL)
            .matcher(readme);
    assertThat(m.find()).as("README.md has a %s block", block).isTrue();
    assertThat(ReadmeCode.compileAndRun(m.group(1), mainClass, dir)).containsExactly(prints);
    assertThat(readme).contains("It prints `" + prints + "`.");
  }
}
