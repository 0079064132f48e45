package io.thriftnio.spring.boot;

import java.time.Duration;
import org.springframework.boot.SpringBootVersion;
import org.springframework.util.ClassUtils;

/**
 * Fails the start, with the fix, on a Spring Boot older than the starter's, or when dependency
 * management has put libraries older than thrift-nio's on the class path. Spring Boot 4.0 manages
 * commons-pool2 2.12 (4.1 manages 2.13), and an application whose parent is {@code
 * spring-boot-starter-parent} gets it over the thrift-nio BOM (a parent's management wins over an
 * import): without this check the first call would fail with a {@code NoSuchMethodError} (measured
 * with the sample application). Netty is checked the same way, for an application that pins an
 * older one.
 */
final class DependencyCheck {

  static final String NETTY_42_CLASS = "io.netty.channel.MultiThreadIoEventLoopGroup";
  static final String POOL_CLASS = "org.apache.commons.pool2.impl.GenericKeyedObjectPool";

  /** The oldest Spring Boot major version the starter runs on. */
  static final int MIN_BOOT_MAJOR = 4;

  private DependencyCheck() {}

  /**
   * Checks Netty (when {@code thrift-nio-netty} is present) and commons-pool2.
   *
   * @throws IllegalStateException naming the library, the version needed and the property to set
   */
  static void check() {
    checkBoot(SpringBootVersion.getVersion());
    ClassLoader loader = ClassUtils.getDefaultClassLoader();
    if (ClassUtils.isPresent("io.thriftnio.netty.NettyThriftServer", loader)
        && !ClassUtils.isPresent(NETTY_42_CLASS, loader)) {
      throw new IllegalStateException(
          "thrift-nio-netty needs Netty 4.2 (expected: "
              + NETTY_42_CLASS
              + " on the class path; found Netty "
              + version("io.netty.channel.Channel", loader)
              + "): the build's dependency management chose an older Netty; with"
              + " spring-boot-starter-parent set the property"
              + " <netty.version>4.2.18.Final</netty.version>");
    }
    if (ClassUtils.isPresent(POOL_CLASS, loader)) {
      checkPool(ClassUtils.resolveClassName(POOL_CLASS, loader), version(POOL_CLASS, loader));
    }
  }

  /**
   * Refuses a commons-pool2 older than 2.13, which lacks {@code borrowObject(key, Duration)}.
   *
   * @param pool the class {@code GenericKeyedObjectPool} found
   * @param found its version, for the message
   * @throws IllegalStateException naming the version found and the property to set
   */
  static void checkPool(Class<?> pool, String found) {
    if (!ClassUtils.hasMethod(pool, "borrowObject", Object.class, Duration.class)) {
      throw new IllegalStateException(
          "thrift-nio-pool needs commons-pool2 2.13 or newer (found "
              + found
              + "): Spring Boot's dependency management chose an older one; with"
              + " spring-boot-starter-parent set the property"
              + " <commons-pool2.version>2.13.1</commons-pool2.version>");
    }
  }

  /**
   * Refuses a Spring Boot older than 4.0, whose health and Micrometer auto-configuration live
   * elsewhere: on it the health indicators and meters would be missing without a word.
   *
   * @param version Spring Boot's version, {@code null} when unknown (then nothing is checked)
   * @throws IllegalStateException naming the version found and the one needed
   */
  static void checkBoot(String version) {
    if (version == null) {
      return; // a repackaged Boot without its manifest: nothing to go by
    }
    int dot = version.indexOf('.');
    String major = dot < 0 ? version : version.substring(0, dot);
    if (major.chars().allMatch(Character::isDigit)
        && !major.isEmpty()
        && Integer.parseInt(major) < MIN_BOOT_MAJOR) {
      throw new IllegalStateException(
          "thrift-nio-spring-boot-starter needs Spring Boot "
              + MIN_BOOT_MAJOR
              + ".0 or newer (found Spring Boot "
              + version
              + "): move the application to Spring Boot 4.0 or 4.1; the starter's health,"
              + " info and meters use Boot 4's modules");
    }
  }

  private static String version(String className, ClassLoader loader) {
    if (!ClassUtils.isPresent(className, loader)) {
      return "none";
    }
    String v =
        ClassUtils.resolveClassName(className, loader).getPackage().getImplementationVersion();
    return v == null ? "of an unknown version" : v;
  }
}
