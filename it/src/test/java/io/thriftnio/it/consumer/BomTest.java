package io.thriftnio.it.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The BOM has no parent, so it repeats the two versions it manages for applications; they must be
 * the ones the library is built with (the root pom's properties of the same name).
 */
class BomTest {

  @ParameterizedTest
  @ValueSource(strings = {"libthrift.version", "slf4j.version"})
  void bomManagesTheVersionTheLibraryIsBuiltWith(String property) throws Exception {
    Path root = StagingRepository.reactorRoot();
    String built = property(Files.readString(root.resolve("pom.xml")), property);
    String bom = Files.readString(root.resolve("bom/pom.xml"));
    assertThat(property(bom, property)).as("bom/pom.xml %s", property).isEqualTo(built);
    String artifact = property.equals("slf4j.version") ? "slf4j-api" : "libthrift";
    assertThat(bom)
        .containsPattern(
            "<artifactId>" + artifact + "</artifactId>\\s*<version>\\$\\{" + property + "}");
  }

  /** The first {@code <property>} element: the top-level one, before any profile's. */
  private static String property(String pom, String property) {
    Matcher m = Pattern.compile("<" + property + ">([^<]+)</" + property + ">").matcher(pom);
    assertThat(m.find()).as("<%s> in the pom", property).isTrue();
    return m.group(1);
  }
}
