package io.thriftnio.spring.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean that the auto-configured Thrift server serves: a class implementing a generated
 * {@code Iface} (wrapped in the generated {@code Processor}) or {@code AsyncIface} (wrapped in the
 * generated {@code AsyncProcessor}), or a {@code TProcessor} bean (served as it is; a {@code
 * TProcessor} bean is served without the annotation too, which then only names it).
 *
 * <pre>{@code
 * @ThriftService
 * @Component
 * class KeyValueHandler implements KeyValue.Iface { ... }
 * }</pre>
 *
 * <p>Put it on the class, or on the {@code @Bean} method that returns the handler.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface ThriftService {

  /**
   * The service's name in a {@code TMultiplexedProcessor}, which clients give to {@code
   * TMultiplexedProtocol}; only used when the server multiplexes (several services, or {@code
   * thrift.server.multiplexed=true}). Default: the generated service class's simple name, e.g.
   * {@code KeyValue}; for a {@code TProcessor} that is no generated processor, the bean name.
   *
   * @return the name, or empty for the default
   */
  String value() default "";
}
