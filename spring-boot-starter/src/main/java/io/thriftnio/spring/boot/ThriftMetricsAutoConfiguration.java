package io.thriftnio.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.thriftnio.core.ServerInterceptor;
import io.thriftnio.micrometer.ServerMeters;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code thrift-nio-micrometer} meters, when the application has a {@code MeterRegistry}: the
 * server's counters ({@code thrift.server.*}, tagged {@code server=thrift}), the method timers
 * ({@code thrift.server.requests}, a {@code ServerInterceptor} bean) and each pool's meters ({@code
 * thrift.pool.*}, tagged {@code pool=<name>}).
 *
 * <p>It runs after Boot's composite registry auto-configuration (Boot 4's {@code
 * spring-boot-micrometer-metrics}, after every registry's export configuration), so that the
 * application's {@code MeterRegistry} exists when {@code @ConditionalOnBean} looks for it; the
 * server's configuration runs after this one.
 */
@AutoConfiguration(
    afterName = ThriftMetricsAutoConfiguration.COMPOSITE_REGISTRY_AUTO_CONFIGURATION,
    before = ThriftAutoConfiguration.class)
@ConditionalOnClass({MeterRegistry.class, ServerMeters.class})
@ConditionalOnBean(MeterRegistry.class)
public class ThriftMetricsAutoConfiguration {

  /**
   * The auto-configuration that makes the application's {@code MeterRegistry} (Boot 4's class name;
   * Boot 3's was in {@code org.springframework.boot.actuate.autoconfigure.metrics}).
   */
  static final String COMPOSITE_REGISTRY_AUTO_CONFIGURATION =
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration";

  /** For Spring. */
  public ThriftMetricsAutoConfiguration() {}

  @Bean
  @ConditionalOnMissingBean(name = "thriftMethodTimers")
  ServerInterceptor thriftMethodTimers(MeterRegistry registry) {
    return ServerMeters.methodTimers(registry, Tags.of("server", MicrometerBinding.SERVER_TAG));
  }

  @Bean
  ThriftMeterBinding thriftMeterBinding(MeterRegistry registry) {
    return new MicrometerBinding(registry);
  }
}
