package io.thriftnio.spring.boot;

import java.time.Duration;
import org.springframework.util.ClassUtils;

/**
 * Fails the start, with the fix, when Spring Boot's dependency management has put libraries older
 * than thrift-nio's on the class path. Boot 3.5 manages Netty 4.1 and commons-pool2 2.12, and an
 * application whose parent is {@code spring-boot-starter-parent} gets them over the thrift-nio BOM
 * (a parent's management wins over an import): without this check the first call would fail with a
 * {@code NoSuchMethodError} (measured with the sample application).
 */
final class DependencyCheck {

  static final String NETTY_42_CLASS = "io.netty.channel.MultiThreadIoEventLoopGroup";
  static final String POOL_CLASS = "org.apache.commons.pool2.impl.GenericKeyedObjectPool";

  private DependencyCheck() {}

  /**
   * Checks Netty (when {@code thrift-nio-netty} is present) and commons-pool2.
   *
   * @throws IllegalStateException naming the library, the version needed and the property to set
   */
  static void check() {
    ClassLoader loader = ClassUtils.getDefaultClassLoader();
    if (ClassUtils.isPresent("io.thriftnio.netty.NettyThriftServer", loader)
        && !ClassUtils.isPresent(NETTY_42_CLASS, loader)) {
      throw new IllegalStateException(
          "thrift-nio-netty needs Netty 4.2 (expected: "
              + NETTY_42_CLASS
              + " on the class path; found Netty "
              + version("io.netty.channel.Channel", loader)
              + "): Spring Boot 3 manages Netty 4.1; with spring-boot-starter-parent set the"
              + " property <netty.version>4.2.18.Final</netty.version>");
    }
    if (ClassUtils.isPresent(POOL_CLASS, loader)) {
      Class<?> pool = ClassUtils.resolveClassName(POOL_CLASS, loader);
      if (!ClassUtils.hasMethod(pool, "borrowObject", Object.class, Duration.class)) {
        throw new IllegalStateException(
            "thrift-nio-pool needs commons-pool2 2.13 or newer (found "
                + version(POOL_CLASS, loader)
                + "): Spring Boot 3 manages an older one; with spring-boot-starter-parent set the"
                + " property <commons-pool2.version>2.13.1</commons-pool2.version>");
      }
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
