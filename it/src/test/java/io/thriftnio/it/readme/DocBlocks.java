package io.thriftnio.it.readme;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The {@code ```java} blocks of README.md and docs/guide/*.md, and what each is. A block is one of:
 *
 * <ul>
 *   <li>a program: a whole compilation unit with a public class; it is compiled and, when it has a
 *       {@code main}, run, and each {@code `line`} of an "It prints" sentence right after it must
 *       be a line it printed;
 *   <li>{@code <!-- snippet: file PATH -->} on the line before: the file {@code PATH} of the
 *       repository, word for word (another test builds and runs it);
 *   <li>{@code <!-- snippet: fragment NAME -->} on the line before: statements or class members,
 *       compiled inside the wrapper {@code src/test/resources/snippets/NAME.java.txt}, which
 *       declares the variables fragments take as given; not run.
 * </ul>
 */
record DocBlocks() {

  /** One block: where it starts (the line after the fence, 1-based) and what it is. */
  record Block(Path file, int line, Kind kind, String argument, String code, List<String> prints) {

    /** {@code file:line}, relative to the repository. */
    String where() {
      return root().relativize(file) + ":" + line;
    }
  }

  enum Kind {
    PROGRAM,
    FILE,
    FRAGMENT,
    /** A block that is none of the above: an error the test reports. */
    UNMARKED
  }

  private static final Pattern MARKER = Pattern.compile("<!-- snippet: (file|fragment) (\\S+) -->");
  private static final Pattern PUBLIC_CLASS =
      Pattern.compile("(?m)^public (?:final )?class (\\w+)");
  private static final Pattern PRINTS = Pattern.compile("`([^`]+)`");

  /** The repository's root (tests run in {@code it/}). */
  static Path root() {
    return Path.of("..").toAbsolutePath().normalize();
  }

  /** README.md, then the guide's chapters in name order. */
  static List<Path> documents() throws IOException {
    List<Path> docs = new ArrayList<>();
    docs.add(root().resolve("README.md"));
    try (Stream<Path> guide = Files.list(root().resolve("docs/guide"))) {
      guide.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    return docs;
  }

  static List<Block> all() throws IOException {
    List<Block> blocks = new ArrayList<>();
    for (Path doc : documents()) {
      blocks.addAll(of(doc));
    }
    return blocks;
  }

  static List<Block> of(Path doc) throws IOException {
    List<String> lines = Files.readAllLines(doc);
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (!lines.get(i).strip().equals("```java")) {
        continue;
      }
      int start = i + 1;
      int end = start;
      while (end < lines.size() && !lines.get(end).strip().equals("```")) {
        end++;
      }
      String code = String.join("\n", lines.subList(start, end)) + "\n";
      Matcher marker = MARKER.matcher(i > 0 ? lines.get(i - 1) : "");
      Kind kind;
      String argument = null;
      if (marker.matches()) {
        kind = marker.group(1).equals("file") ? Kind.FILE : Kind.FRAGMENT;
        argument = marker.group(2);
      } else {
        Matcher cls = PUBLIC_CLASS.matcher(code);
        kind = cls.find() ? Kind.PROGRAM : Kind.UNMARKED;
        argument = kind == Kind.PROGRAM ? cls.group(1) : null;
      }
      blocks.add(new Block(doc, start + 1, kind, argument, code, prints(lines, end + 1)));
      i = end;
    }
    return blocks;
  }

  /** The back-quoted lines of an "It prints" sentence in the paragraph after a block. */
  private static List<String> prints(List<String> lines, int from) {
    StringBuilder paragraph = new StringBuilder();
    for (int i = from; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.isBlank() && paragraph.length() > 0) {
        break;
      }
      if (line.startsWith("```") || line.startsWith("#")) {
        break;
      }
      paragraph.append(line).append(' ');
    }
    String text = paragraph.toString();
    int at = text.indexOf("It prints ");
    if (at < 0) {
      return List.of();
    }
    int stop = text.indexOf(". ", at);
    List<String> prints = new ArrayList<>();
    Matcher m = PRINTS.matcher(stop < 0 ? text.substring(at) : text.substring(at, stop + 1));
    while (m.find()) {
      prints.add(m.group(1));
    }
    return prints;
  }
}
