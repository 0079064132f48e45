package io.thriftnio.it.readme;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.it.readme.DocBlocks.Block;
import io.thriftnio.it.readme.DocBlocks.Kind;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code ```java} block of README.md and docs/guide/*.md compiles against the test class path
 * (fragments inside their named wrapper, see {@link DocBlocks}), every complete program runs and
 * prints what the text after it says, and every block that shows a file of the repository is that
 * file. A failure names the document and the line.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class DocSnippetsTest {

  @TempDir static Path dir;

  private static List<Block> blocks;

  /** Per block, its compiler errors as {@code file:line: message} lines. */
  private static final Map<Block, List<String>> errors = new LinkedHashMap<>();

  @BeforeAll
  static void compileEveryBlockOnce() throws IOException {
    blocks = DocBlocks.all();
    Map<Path, Block> sources = new HashMap<>();
    Map<Path, Integer> offsets = new HashMap<>();
    int n = 0;
    for (Block b : blocks) {
      errors.put(b, new ArrayList<>());
      if (b.kind() == Kind.PROGRAM) {
        Path src = Files.createDirectories(dir.resolve("p" + n++)).resolve(b.argument() + ".java");
        Files.writeString(src, b.code());
        sources.put(src, b);
        offsets.put(src, 0);
      } else if (b.kind() == Kind.FRAGMENT) {
        String name = "Fragment" + n++;
        String wrapper = wrapper(b.argument());
        int at = wrapper.indexOf("//SNIPPET");
        if (at < 0) {
          errors.get(b).add(b.where() + ": no wrapper named " + b.argument());
          continue;
        }
        String code =
            wrapper.substring(0, at).replace("SNIPPET_CLASS", name)
                + b.code()
                + wrapper.substring(at + "//SNIPPET".length());
        Path src = dir.resolve(name + ".java");
        Files.writeString(src, code);
        sources.put(src, b);
        offsets.put(src, (int) wrapper.substring(0, at).lines().count());
      }
    }
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try (StandardJavaFileManager files =
        javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
      javac
          .getTask(
              null,
              files,
              diagnostics,
              List.of("-classpath", System.getProperty("java.class.path"), "-d", dir.toString()),
              null,
              files.getJavaFileObjectsFromPaths(sources.keySet()))
          .call();
    }
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      if (d.getKind() != Diagnostic.Kind.ERROR || d.getSource() == null) {
        continue;
      }
      Path src = Path.of(d.getSource().toUri());
      Block b = sources.get(src);
      long line = b.line() + d.getLineNumber() - 1 - offsets.get(src);
      errors
          .get(b)
          .add(
              DocBlocks.root().relativize(b.file())
                  + ":"
                  + line
                  + ": "
                  + d.getMessage(Locale.ROOT));
    }
  }

  private static String wrapper(String name) throws IOException {
    try (InputStream in =
        DocSnippetsTest.class.getResourceAsStream("/snippets/" + name + ".java.txt")) {
      return in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @TestFactory
  Stream<DynamicTest> everyJavaBlockIsMarkedAndCompiles() {
    return blocks.stream()
        .map(
            b ->
                DynamicTest.dynamicTest(
                    b.where() + " " + b.kind().name().toLowerCase(Locale.ROOT),
                    () -> {
                      assertThat(b.kind())
                          .as(
                              "%s: a java block is a program (a public class with its imports),"
                                  + " or is marked <!-- snippet: fragment NAME --> or <!--"
                                  + " snippet: file PATH --> on the line before it",
                              b.where())
                          .isNotEqualTo(Kind.UNMARKED);
                      assertThat(errors.get(b)).as("%s does not compile", b.where()).isEmpty();
                    }));
  }

  @TestFactory
  Stream<DynamicTest> everyProgramRunsAndPrintsWhatTheTextSays() {
    return blocks.stream()
        .filter(b -> b.kind() == Kind.PROGRAM && b.code().contains("static void main("))
        .map(
            b ->
                DynamicTest.dynamicTest(
                    b.where() + " " + b.argument(),
                    () -> {
                      assertThat(errors.get(b)).as("%s compiles", b.where()).isEmpty();
                      assertThat(b.prints())
                          .as(
                              "%s: the text after a program says what it prints (It prints `...`)",
                              b.where())
                          .isNotEmpty();
                      List<String> printed = ReadmeCode.run(b.argument(), dir);
                      assertThat(printed)
                          .as("%s prints what the text after it says", b.where())
                          .containsAll(b.prints());
                    }));
  }

  @TestFactory
  Stream<DynamicTest> everyFileBlockIsThatFile() {
    return blocks.stream()
        .filter(b -> b.kind() == Kind.FILE)
        .map(
            b ->
                DynamicTest.dynamicTest(
                    b.where() + " " + b.argument(),
                    () ->
                        assertThat(b.code())
                            .as("%s shows %s as it is", b.where(), b.argument())
                            .isEqualTo(Files.readString(DocBlocks.root().resolve(b.argument())))));
  }
}
