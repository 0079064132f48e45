package io.thriftnio.testkit.conformance;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Which cells of a matrix run in this JVM, from two system properties that the build sets:
 *
 * <ul>
 *   <li>{@value #CELLS}: {@code all} (the default) runs every cell; {@code representative} runs the
 *       cells marked {@link ServerCell#asRepresentative()}, one or two per suite and transport. The
 *       CI legs that repeat the suites on another JDK or libthrift use it: what they change (the
 *       JVM, the Thrift library) is not what the other cells vary (native transport, TLS provider,
 *       client kind).
 *   <li>{@value #EXCLUDED_TAGS}: a comma-separated list of tags; a cell carrying one is left out,
 *       as JUnit leaves out a class with an excluded tag. The root POM passes Surefire's {@code
 *       excludedGroups} here, so that {@code native-transport} keeps meaning the same for cells as
 *       for classes.
 * </ul>
 *
 * Prints, once per call, which cells run, numbered as Surefire's reports number them, and why some
 * are left out, so that a build log says what it covered.
 */
public final class Cells {

  /** System property: {@code all} or {@code representative}. */
  public static final String CELLS = "thriftnio.cells";

  /** System property: comma-separated tags whose cells are left out. */
  public static final String EXCLUDED_TAGS = "thriftnio.excludedTags";

  /** Tag of the cells that run on a native transport or native TLS provider. */
  public static final String NATIVE_TRANSPORT = "native-transport";

  private Cells() {}

  /**
   * The cells of {@code all} that run here, in order.
   *
   * @param testClass the class that runs them, for the printed line
   * @param all every cell of the matrix
   * @return the cells that run
   * @throws IllegalArgumentException if {@value #CELLS} has another value than {@code all} or
   *     {@code representative}
   */
  public static <C extends ServerCell<?>> Stream<C> select(Class<?> testClass, List<C> all) {
    String mode = System.getProperty(CELLS, "all").trim().toLowerCase(Locale.ROOT);
    boolean representativeOnly =
        switch (mode) {
          case "", "all" -> false;
          case "representative" -> true;
          default ->
              throw new IllegalArgumentException(
                  CELLS + ": " + mode + " (expected: all or representative)");
        };
    Set<String> excluded = excludedTags();
    List<C> chosen =
        all.stream()
            .filter(c -> !representativeOnly || c.representative())
            .filter(c -> Collections.disjoint(c.tags(), excluded))
            .toList();
    // Surefire's reports name a run by its index ("NettyConformanceTest[3]"): this line maps
    // each index to its cell.
    StringBuilder line = new StringBuilder(testClass.getSimpleName());
    line.append(" runs ").append(chosen.size()).append(" of ").append(all.size()).append(" cells");
    if (chosen.size() < all.size()) {
      line.append(" (")
          .append(CELLS)
          .append('=')
          .append(representativeOnly ? "representative" : "all")
          .append(", ")
          .append(EXCLUDED_TAGS)
          .append('=')
          .append(String.join(",", excluded))
          .append(')');
    }
    for (int i = 0; i < chosen.size(); i++) {
      line.append(i == 0 ? ": " : ", ")
          .append('[')
          .append(i + 1)
          .append("] ")
          .append(chosen.get(i));
    }
    System.out.println(line);
    return chosen.stream();
  }

  private static Set<String> excludedTags() {
    return Arrays.stream(System.getProperty(EXCLUDED_TAGS, "").split(","))
        .map(String::trim)
        .filter(t -> !t.isEmpty())
        .collect(Collectors.toUnmodifiableSet());
  }
}
