package io.thriftnio.spring.boot;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * Actuator's view of Thrift, when Actuator is on the class path: the health indicators {@code
 * thriftServer} ({@code UP} serving, {@code OUT_OF_SERVICE} draining, {@code DOWN} stopped) and
 * {@code thriftClients} (each pool's endpoints), and {@code thrift} in {@code /actuator/info}.
 */
@AutoConfiguration(after = ThriftAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
public class ThriftActuatorAutoConfiguration {

  /** For Spring. */
  public ThriftActuatorAutoConfiguration() {}

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

  @Bean
  @ConditionalOnMissingBean(name = "thriftInfoContributor")
  InfoContributor thriftInfoContributor(
      ObjectProvider<ThriftServerLifecycle> server, ThriftPools pools) {
    return new ThriftInfoContributor(server, pools);
  }
}
