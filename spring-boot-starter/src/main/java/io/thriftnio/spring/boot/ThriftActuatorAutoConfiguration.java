package io.thriftnio.spring.boot;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * Actuator's view of Thrift: the health indicators {@code thriftServer} ({@code UP} serving, {@code
 * OUT_OF_SERVICE} draining, {@code DOWN} stopped) and {@code thriftClients} (each pool's endpoints)
 * when Spring Boot's health module ({@code spring-boot-health}) is on the class path, and {@code
 * thrift} in {@code /actuator/info} when Actuator ({@code spring-boot-actuator}) is. Each part is
 * conditioned on its own module, so that one that is missing takes only its own part away; the
 * start logs what is missing and how to add it ({@code StartupReport}).
 */
@AutoConfiguration(after = ThriftAutoConfiguration.class)
public class ThriftActuatorAutoConfiguration {

  /** For Spring. */
  public ThriftActuatorAutoConfiguration() {}

  /** The health indicators, with Boot's health module. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  static class Health {

    @Bean
    @ConditionalOnBean(ThriftServerLifecycle.class)
    @ConditionalOnMissingBean(name = "thriftServerHealthIndicator")
    HealthIndicator thriftServerHealthIndicator(ThriftServerLifecycle server) {
      return ThriftHealthIndicators.server(server);
    }

    @Bean
    @Conditional(OnThriftClientsCondition.class)
    @ConditionalOnMissingBean(name = "thriftClientsHealthIndicator")
    HealthIndicator thriftClientsHealthIndicator(ThriftPools pools) {
      return ThriftHealthIndicators.clients(pools);
    }
  }

  /** {@code thrift} in {@code /actuator/info}, with Actuator. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(InfoContributor.class)
  static class Info {

    @Bean
    @ConditionalOnMissingBean(name = "thriftInfoContributor")
    InfoContributor thriftInfoContributor(
        ObjectProvider<ThriftServerLifecycle> server, ThriftPools pools) {
      return new ThriftInfoContributor(server, pools);
    }
  }
}
