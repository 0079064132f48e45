package io.thriftnio.it.readme;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.it.readme.DocBlocks.Block;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The clients chapter's promise about its three-clients program (which {@link DocSnippetsTest}
 * compiles and runs as written): the clients move to Grizzly by changing the one line it points at.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QuickStartTest {

  @Test
  void switchingTheClientsToGrizzlyChangesOneLine(@TempDir Path dir) throws Exception {
    Block program =
        DocBlocks.of(DocBlocks.root().resolve("docs/guide/clients.md")).stream()
            .filter(b -> "QuickStart".equals(b.argument()))
            .findFirst()
            .orElseThrow();
    String line = "try (ClientIo resources = NettyClientIo.create();";
    assertThat(program.code()).containsOnlyOnce(line);
    String grizzly =
        program
            .code()
            .replace(line, "try (ClientIo resources = GrizzlyClientIo.create();")
            .replace(
                "import io.thriftnio.netty.NettyClientIo;",
                "import io.thriftnio.grizzly.GrizzlyClientIo;");
    assertThat(ReadmeCode.compileAndRun(grizzly, "QuickStart", dir)).contains("db_work rows: 3");
  }
}
