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
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/** Compiles a documentation block against the test class path and runs its {@code main}. */
final class ReadmeCode {

  private ReadmeCode() {}

  /**
   * @param code the block's Java source, one public class named {@code mainClass}
   * @param mainClass the class whose {@code main} runs
   * @param dir where the source and its classes go
   * @return the lines {@code main} printed on {@code System.out}
   */
  static List<String> compileAndRun(String code, String mainClass, Path dir) throws Exception {
    Path source = dir.resolve(mainClass + ".java");
    Files.writeString(source, code);
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
    return run(mainClass, dir);
  }

  /**
   * Runs {@code main} of a class compiled into {@code dir}, in this JVM.
   *
   * @return the lines it printed on {@code System.out}
   */
  static List<String> run(String mainClass, Path dir) throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    PrintStream original = System.out;
    try (URLClassLoader loader =
        new URLClassLoader(new URL[] {dir.toUri().toURL()}, ReadmeCode.class.getClassLoader())) {
      Method main = loader.loadClass(mainClass).getMethod("main", String[].class);
      System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
      main.invoke(null, (Object) new String[0]);
    } finally {
      System.setOut(original);
    }
    return printed.toString(StandardCharsets.UTF_8).lines().toList();
  }
}
