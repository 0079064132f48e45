package io.thriftnio.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.thriftnio.micrometer.MethodTimers;
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
 */
@AutoConfiguration(
    afterName =
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
    before = ThriftAutoConfiguration.class)
@ConditionalOnClass({MeterRegistry.class, MethodTimers.class})
@ConditionalOnBean(MeterRegistry.class)
public class ThriftMetricsAutoConfiguration {

  /** For Spring. */
  public ThriftMetricsAutoConfiguration() {}

  @Bean
  @ConditionalOnMissingBean
  MethodTimers thriftMethodTimers(MeterRegistry registry) {
    return new MethodTimers(registry, Tags.of("server", MicrometerBinding.SERVER_TAG));
  }

  @Bean
  ThriftMeterBinding thriftMeterBinding(MeterRegistry registry) {
    return new MicrometerBinding(registry);
  }
}
