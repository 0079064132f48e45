/**
 * thrift-nio's Spring Boot auto-configuration: the server, the client pools, their Micrometer
 * meters and Actuator health. Spring reads the configuration classes and settings reflectively, so
 * the package is open to it.
 */
module io.thriftnio.spring.boot {
  requires transitive io.thriftnio.core;
  requires transitive io.thriftnio.pool;
  requires io.thriftnio.netty;
  requires static io.thriftnio.grizzly;
  // Optional, and named by the conditions of public configuration classes.
  requires static transitive io.thriftnio.micrometer;
  requires static transitive micrometer.core;
  // Spring's jars name their modules in their manifests (automatic modules).
  requires transitive spring.boot;
  requires transitive spring.boot.autoconfigure;
  requires transitive spring.beans;
  requires transitive spring.context;
  requires transitive spring.core;
  requires static transitive spring.boot.actuator;
  requires static spring.boot.health;
  requires static com.fasterxml.jackson.annotation;
  requires org.slf4j;
  // @GuardedBy, for Error Prone at build time; not needed at run time.
  requires static com.google.errorprone.annotations;

  exports io.thriftnio.spring.boot;

  opens io.thriftnio.spring.boot to
      spring.core,
      spring.beans,
      spring.context;
}
