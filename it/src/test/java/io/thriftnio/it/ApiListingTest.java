package io.thriftnio.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaConstructor;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The checked-in listing of each published module's API ({@code api/<artifact>.api} at the top of
 * the project): every public type of the packages its module descriptor exports, and each type's
 * public and protected members. A change to the API that does not update the listing fails here, so
 * every API change shows in a review as a change to the listing. To accept a change, run this test
 * with {@code -Dthriftnio.api.write=true} and commit the listing with the code.
 */
@Timeout(60)
class ApiListingTest {

  private static final boolean WRITE = Boolean.getBoolean("thriftnio.api.write");

  /** Each published artifact, by a class its jar holds. */
  static Stream<Arguments> publishedModules() {
    return Stream.of(
        Arguments.of("thrift-nio-core", io.thriftnio.core.ThriftServer.class),
        Arguments.of("thrift-nio-netty", io.thriftnio.netty.NettyThriftServer.class),
        Arguments.of("thrift-nio-grizzly", io.thriftnio.grizzly.GrizzlyThriftServer.class),
        Arguments.of("thrift-nio-pool", io.thriftnio.pool.ThriftClientPool.class),
        Arguments.of("thrift-nio-micrometer", io.thriftnio.micrometer.ServerMeters.class),
        Arguments.of("thrift-nio-zookeeper", io.thriftnio.zookeeper.ZooKeeperEndpointSource.class),
        Arguments.of("thrift-nio-opentelemetry", io.thriftnio.opentelemetry.ThriftTracing.class),
        Arguments.of(
            "thrift-nio-spring-boot-starter",
            io.thriftnio.spring.boot.ThriftAutoConfiguration.class));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("publishedModules")
  void theListingIsTheApi(String artifact, Class<?> anchor) throws Exception {
    List<String> actual = listing(anchor);
    Path file = listingFile(artifact);
    if (WRITE) {
      Files.createDirectories(file.getParent());
      Files.write(file, actual, StandardCharsets.UTF_8);
    }
    assertThat(file)
        .as("%s: no API listing; run ApiListingTest with -Dthriftnio.api.write=true", artifact)
        .exists();
    List<String> listed = Files.readAllLines(file, StandardCharsets.UTF_8);
    assertThat(actual)
        .as(
            "%s: the API changed without its listing %s; if the change is meant, rerun this test"
                + " with -Dthriftnio.api.write=true and commit the listing",
            artifact, file)
        .containsExactlyElementsOf(listed);
  }

  /** {@code api/} at the top of the project, found from the module's working directory. */
  private static Path listingFile(String artifact) {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve("mvnw"))) {
      dir = dir.getParent();
    }
    assertThat(dir).as("the project's top directory (holding mvnw)").isNotNull();
    return dir.resolve("api").resolve(artifact + ".api");
  }

  private static List<String> listing(Class<?> anchor) throws IOException, URISyntaxException {
    Path location = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
    if (Files.isDirectory(location)) {
      return listing(location, new ClassFileImporter().importPath(location));
    }
    try (FileSystem jar = FileSystems.newFileSystem(location);
        JarFile classes = new JarFile(location.toFile())) {
      return listing(jar.getPath("/"), new ClassFileImporter().importJar(classes));
    }
  }

  private static List<String> listing(Path root, JavaClasses classes) throws IOException {
    ModuleDescriptor descriptor;
    try (InputStream in = Files.newInputStream(root.resolve("module-info.class"))) {
      descriptor = ModuleDescriptor.read(in);
    }
    Set<String> exported =
        descriptor.exports().stream()
            .filter(e -> !e.isQualified())
            .map(ModuleDescriptor.Exports::source)
            .collect(Collectors.toSet());
    List<String> lines = new ArrayList<>();
    lines.add("module " + descriptor.name());
    classes.stream()
        .filter(type -> exported.contains(type.getPackageName()))
        .filter(ApiListingTest::visible)
        .sorted(Comparator.comparing(JavaClass::getName))
        .forEach(
            type -> {
              lines.add("");
              lines.add(describe(type));
              members(type).forEach(member -> lines.add("  " + member));
            });
    return lines;
  }

  /** Public, and every enclosing type public: what a user can name. */
  private static boolean visible(JavaClass type) {
    if (type.isAnonymousClass() || type.getSimpleName().equals("package-info")) {
      return false;
    }
    for (JavaClass t = type; t != null; t = t.getEnclosingClass().orElse(null)) {
      if (!t.getModifiers().contains(JavaModifier.PUBLIC)) {
        return false;
      }
    }
    return true;
  }

  private static String describe(JavaClass type) {
    String kind =
        type.isAnnotation()
            ? "@interface"
            : type.isInterface()
                ? "interface"
                : type.isEnum() ? "enum" : type.isRecord() ? "record" : "class";
    Set<JavaModifier> shown = EnumSet.of(JavaModifier.STATIC);
    if (kind.equals("class")) {
      shown.addAll(EnumSet.of(JavaModifier.ABSTRACT, JavaModifier.FINAL));
    }
    if (type.isEnum() || type.isRecord() || type.isInterface()) {
      shown.remove(JavaModifier.STATIC);
    }
    StringBuilder line = new StringBuilder(modifiers(type.getModifiers(), shown));
    line.append(kind).append(' ').append(type.getName());
    type.getRawSuperclass()
        .filter(s -> !s.getName().equals("java.lang.Object"))
        .filter(s -> !type.isEnum() && !type.isRecord())
        .ifPresent(s -> line.append(" extends ").append(s.getName()));
    List<String> interfaces =
        type.getRawInterfaces().stream()
            .map(JavaClass::getName)
            .filter(name -> !name.equals("java.lang.annotation.Annotation"))
            .sorted()
            .toList();
    if (!interfaces.isEmpty()) {
      line.append(type.isInterface() ? " extends " : " implements ")
          .append(String.join(", ", interfaces));
    }
    return line.toString();
  }

  /**
   * Public members, and protected ones where a user can subclass, as the JVM links them (erased
   * types: what binary compatibility is about).
   */
  private static List<String> members(JavaClass type) {
    boolean subclassable =
        !type.isInterface()
            && !type.getModifiers().contains(JavaModifier.FINAL)
            && type.getConstructors().stream().anyMatch(ApiListingTest::publicOrProtected);
    Set<JavaModifier> shown =
        EnumSet.of(JavaModifier.PROTECTED, JavaModifier.STATIC, JavaModifier.FINAL);
    if (!type.isInterface()) {
      shown.add(JavaModifier.ABSTRACT);
    }
    return Stream.of(type.getFields(), type.getConstructors(), type.getMethods())
        .flatMap(Set::stream)
        .map(JavaMember.class::cast)
        .filter(m -> !m.getModifiers().contains(JavaModifier.SYNTHETIC))
        .filter(m -> !m.getModifiers().contains(JavaModifier.BRIDGE))
        .filter(
            m ->
                m.getModifiers().contains(JavaModifier.PUBLIC)
                    || (subclassable && m.getModifiers().contains(JavaModifier.PROTECTED)))
        .map(m -> modifiers(m.getModifiers(), shown) + signature(m))
        .sorted()
        .toList();
  }

  private static boolean publicOrProtected(JavaMember member) {
    return member.getModifiers().contains(JavaModifier.PUBLIC)
        || member.getModifiers().contains(JavaModifier.PROTECTED);
  }

  private static String signature(JavaMember member) {
    if (member instanceof JavaField field) {
      return field.getRawType().getName() + " " + field.getName();
    }
    JavaCodeUnit unit = (JavaCodeUnit) member;
    String parameters =
        unit.getRawParameterTypes().stream()
            .map(JavaClass::getName)
            .collect(Collectors.joining(", ", "(", ")"));
    if (unit instanceof JavaConstructor) {
      return "<init>" + parameters;
    }
    return unit.getRawReturnType().getName() + " " + unit.getName() + parameters;
  }

  private static String modifiers(Set<JavaModifier> modifiers, Set<JavaModifier> shown) {
    StringBuilder text = new StringBuilder();
    for (JavaModifier modifier :
        List.of(
            JavaModifier.PROTECTED,
            JavaModifier.ABSTRACT,
            JavaModifier.STATIC,
            JavaModifier.FINAL)) {
      if (shown.contains(modifier) && modifiers.contains(modifier)) {
        text.append(modifier.name().toLowerCase(Locale.ROOT)).append(' ');
      }
    }
    return text.toString();
  }
}
