package io.thriftnio.it.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Spring Boot guide's sample as a user builds it: copy {@code samples/spring-boot}, generate
 * the code with the guide's compiler command, and {@code ./mvnw package} it against this build's
 * artifacts (staged under {@code target/}, never {@code ~/.m2}). The package runs the sample's own
 * test, {@code GreeterApplicationTest}: the application on free ports, a call through the injected
 * pool, {@code /actuator/health} up and then 503 while the Thrift server drains, the meters, and
 * every call in flight at shutdown completed.
 *
 * <p>{@code -Dthriftnio.sample.spring-boot=4.1.2} builds the sample on that Spring Boot instead of
 * its parent's (4.0.7), the other line the starter supports.
 *
 * <p>Needs a Thrift compiler, as {@link FirstServiceTest} does; Spring Boot's artifacts come from
 * Maven Central into the staging repository when {@code ~/.m2} lacks them.
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class SpringBootSampleTest {

  /** The guide's generation command, run in the sample's directory. */
  static final String GENERATE =
      "thrift --gen java:future_iface,generated_annotations=suppress"
          + " -out src/main/java src/main/thrift/greeter.thrift";

  /** The sample's parent's version, between groups 1 and 2. */
  static final Pattern PARENT_VERSION =
      Pattern.compile(
          "(<artifactId>spring-boot-starter-parent</artifactId>\\s*<version>)[^<]+(</version>)");

  @Test
  void generateBuildAndRunTheSamplesTest(@TempDir Path dir) throws Exception {
    ThriftCompiler thrift = compilerOrSkip();
    assertThat(
            Files.readString(StagingRepository.reactorRoot().resolve("docs/guide/spring-boot.md")))
        .as("the guide shows the generation command this test runs")
        .contains(GENERATE);

    Path project = dir.resolve("spring-boot");
    ConsumerBuild.copyTree(StagingRepository.reactorRoot().resolve("samples/spring-boot"), project);
    String boot = System.getProperty("thriftnio.sample.spring-boot");
    if (boot != null) {
      Path pom = project.resolve("pom.xml");
      Matcher parent = PARENT_VERSION.matcher(Files.readString(pom));
      assertThat(parent.find()).as("the sample's pom names spring-boot-starter-parent").isTrue();
      Files.writeString(pom, parent.replaceFirst("$1" + boot + "$2"));
    }
    List<String> command = new ArrayList<>(List.of(GENERATE.split(" ")));
    command.set(0, thrift.executable().toString());
    ConsumerBuild.run(project, Duration.ofMinutes(1), command.toArray(String[]::new));

    ConsumerBuild.mvnwPackage(project, StagingRepository.stage(dir.resolve("repo")));

    Path report =
        project.resolve("target/surefire-reports/TEST-example.GreeterApplicationTest.xml");
    assertThat(report).exists();
    assertThat(Files.readString(report))
        .as("the sample's test ran and passed")
        .contains("tests=\"1\"", "failures=\"0\"", "errors=\"0\"", "skipped=\"0\"");
    assertThat(project.resolve("target/spring-boot-greeter.jar")).exists();
  }

  private static ThriftCompiler compilerOrSkip() throws Exception {
    StringBuilder why = new StringBuilder();
    Optional<ThriftCompiler> found = ThriftCompiler.find(why);
    if (found.isEmpty()) {
      if ("1".equals(System.getenv("THRIFTNIO_REQUIRE_THRIFT"))) {
        fail("THRIFTNIO_REQUIRE_THRIFT=1, but " + why);
      }
      Assumptions.abort("SKIPPED: " + why);
    }
    return found.get();
  }
}
