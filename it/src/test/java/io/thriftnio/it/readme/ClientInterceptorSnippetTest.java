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
 * Compiles and runs README's client-interceptor block as written: a pool with an access log and an
 * interceptor that refuses one method prints one line per Thrift call and the refusal the caller
 * got, as the README says it does.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClientInterceptorSnippetTest {

  @Test
  void readmeClientInterceptorBlockCompilesAndRunsAsDocumented(@TempDir Path dir) throws Exception {
    String readme = Files.readString(Path.of("..", "docs", "guide", "interceptors-metrics.md"));
    Matcher m =
        Pattern.compile(
                "<!-- client-interceptors:begin -->\\s*```java\\n(.*?)```\\s*"
                    + "<!-- client-interceptors:end -->",
                Pattern.DOTALL)
            .matcher(readme);
    assertThat(m.find()).as("README.md has a client-interceptors block").isTrue();

    List<String> lines = ReadmeCode.compileAndRun(m.group(1), "ClientInterceptors", dir);

    assertThat(lines)
        .containsExactly(
            "get_last_sale SUCCESS",
            "fail DECLARED_EXCEPTION",
            "db_work REFUSED",
            "refused: db_work is off for this client");
    assertThat(readme)
        .contains(
            "It prints `get_last_sale SUCCESS`, `fail DECLARED_EXCEPTION`, `db_work REFUSED` and\n"
                + "`refused: db_work is off for this client`.");
  }
}
