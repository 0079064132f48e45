package io.thriftnio.it;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The boundaries of the published modules' main code, checked on the class path (where the module
 * descriptors do not apply): packages form no cycles, the API packages use no internal package, and
 * no API type shows an internal one in what a user can see of it. The module descriptors make javac
 * say the same for users on the module path ({@code -Xlint:exports}).
 */
@Timeout(60)
class ArchitectureTest {

  /** Packages whose public types are not API: any {@code .internal} package, and the wire. */
  private static final String[] NOT_API = {"..internal..", "io.thriftnio.core.wire.."};

  private static JavaClasses library;

  @BeforeAll
  static void importLibrary() {
    library =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(
                location ->
                    !location.contains("/io/thriftnio/testkit/")
                        && !location.contains("/io/thriftnio/it/"))
            .importPackages("io.thriftnio");
  }

  @Test
  void importsEveryPublishedModule() {
    // A rule over an empty import passes: make sure every module was found.
    Stream.of(
            "io.thriftnio.core",
            "io.thriftnio.netty",
            "io.thriftnio.grizzly",
            "io.thriftnio.pool",
            "io.thriftnio.micrometer",
            "io.thriftnio.opentelemetry",
            "io.thriftnio.zookeeper")
        .forEach(
            p ->
                org.assertj.core.api.Assertions.assertThat(library.containPackage(p))
                    .as("classes of %s imported", p)
                    .isTrue());
  }

  @Test
  void packagesAreFreeOfCycles() {
    slices().matching("io.thriftnio.(**)").should().beFreeOfCycles().check(library);
  }

  @Test
  void apiPackagesUseNoInternalPackageOfCore() {
    noClasses()
        .that()
        .resideInAnyPackage("io.thriftnio.core", "io.thriftnio.core.tls", "io.thriftnio.core.wire")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.thriftnio.core.internal..")
        .check(library);
  }

  @Test
  void utilityPackageDependsOnNothingOfTheLibrary() {
    // Its checks refuse a setting with the settings package's exception, a leaf of its own.
    noClasses()
        .that()
        .resideInAPackage("io.thriftnio.core.util.internal..")
        .should()
        .dependOnClassesThat(
            resideInAPackage("io.thriftnio..")
                .and(
                    describe(
                        "outside it and io.thriftnio.core.settings",
                        c ->
                            !c.getPackageName().startsWith("io.thriftnio.core.util.internal")
                                && !c.getPackageName().equals("io.thriftnio.core.settings"))))
        .check(library);
  }

  @Test
  void settingsPackageDependsOnNothingOfTheLibrary() {
    noClasses()
        .that()
        .resideInAPackage("io.thriftnio.core.settings")
        .should()
        .dependOnClassesThat(
            resideInAPackage("io.thriftnio..")
                .and(
                    describe(
                        "outside it",
                        c -> !c.getPackageName().equals("io.thriftnio.core.settings"))))
        .check(library);
  }

  @Test
  void apiTypesShowNoInternalType() {
    classes()
        .that(describe("are API types", ArchitectureTest::isApi))
        .should(showNoInternalType())
        .check(library);
  }

  private static DescribedPredicate<JavaClass> in(String packageName) {
    return resideInAPackage(packageName);
  }

  /** Public, with every enclosing class public, in a package that is API. */
  private static boolean isApi(JavaClass c) {
    for (JavaClass k = c; k != null; k = k.getEnclosingClass().orElse(null)) {
      if (!k.getModifiers().contains(JavaModifier.PUBLIC)) {
        return false;
      }
    }
    return !isInternal(c);
  }

  private static boolean isInternal(JavaClass c) {
    return resideInAPackage(NOT_API[0]).test(c) || resideInAPackage(NOT_API[1]).test(c);
  }

  private static boolean visible(Set<JavaModifier> modifiers) {
    return modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED);
  }

  /**
   * Neither its supertypes nor its public and protected members' types (fields, parameters,
   * returns, exceptions, type arguments included) are in an internal package.
   */
  private static ArchCondition<JavaClass> showNoInternalType() {
    return new ArchCondition<>("show no internal type in their public signature") {
      @Override
      public void check(JavaClass c, ConditionEvents events) {
        c.getRawSuperclass().ifPresent(s -> report(c, "extends", s, events));
        c.getRawInterfaces().forEach(i -> report(c, "implements", i, events));
        for (JavaField f : c.getFields()) {
          if (visible(f.getModifiers())) {
            involved(f.getType()).forEach(t -> report(c, "field " + f.getName(), t, events));
          }
        }
        for (JavaCodeUnit m : c.getCodeUnits()) {
          if (!visible(m.getModifiers())) {
            continue;
          }
          String where = m.getName() + "(...)";
          involved(m.getReturnType()).forEach(t -> report(c, where + " returns", t, events));
          m.getParameterTypes()
              .forEach(p -> involved(p).forEach(t -> report(c, where + " takes", t, events)));
          m.getThrowsClause().getTypes().forEach(t -> report(c, where + " throws", t, events));
        }
      }
    };
  }

  private static Stream<JavaClass> involved(JavaType type) {
    return type.getAllInvolvedRawTypes().stream();
  }

  private static void report(JavaClass owner, String how, JavaClass type, ConditionEvents events) {
    if (isInternal(type)) {
      events.add(
          SimpleConditionEvent.violated(
              owner, owner.getName() + " " + how + " the internal " + type.getName()));
    }
  }
}
