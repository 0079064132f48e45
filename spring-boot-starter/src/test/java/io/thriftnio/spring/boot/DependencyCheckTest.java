package io.thriftnio.spring.boot;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.apache.commons.pool2.impl.GenericKeyedObjectPool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The start refuses what cannot work, saying what to change. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class DependencyCheckTest {

  @Test
  void springBoot3IsRefusedNamingTheVersionFoundAndTheOneNeeded() {
    assertThatThrownBy(() -> DependencyCheck.checkBoot("3.5.7"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "thrift-nio-spring-boot-starter needs Spring Boot 4.0 or newer (found Spring Boot"
                + " 3.5.7): move the application to Spring Boot 4.0 or 4.1; the starter's health,"
                + " info and meters use Boot 4's modules");
  }

  @Test
  void springBoot4AndAnUnknownVersionPass() {
    assertThatCode(() -> DependencyCheck.checkBoot("4.0.7")).doesNotThrowAnyException();
    assertThatCode(() -> DependencyCheck.checkBoot("4.1.2")).doesNotThrowAnyException();
    assertThatCode(() -> DependencyCheck.checkBoot(null)).doesNotThrowAnyException();
  }

  @Test
  void anOldCommonsPool2IsRefusedWithThePropertyToSetAndNoBootLineNamed() {
    // Object stands for a GenericKeyedObjectPool without borrowObject(key, Duration) (2.12).
    assertThatThrownBy(() -> DependencyCheck.checkPool(Object.class, "2.12.1"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "thrift-nio-pool needs commons-pool2 2.13 or newer (found 2.12.1): Spring Boot's"
                + " dependency management chose an older one; with spring-boot-starter-parent set"
                + " the property <commons-pool2.version>2.13.1</commons-pool2.version>");
  }

  @Test
  void theCommonsPool2OfTheBuildPasses() {
    assertThatCode(() -> DependencyCheck.checkPool(GenericKeyedObjectPool.class, "2.13.1"))
        .doesNotThrowAnyException();
  }
}
