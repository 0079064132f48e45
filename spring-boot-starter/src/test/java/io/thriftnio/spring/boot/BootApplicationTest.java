package io.thriftnio.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.thriftnio.testkit.gen.BenchService;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.info.InfoEndpoint;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

/**
 * A whole Spring Boot application, every auto-configuration on the class path (Actuator, health,
 * Micrometer and ours) in Boot's own order, as a user's application runs: each of the starter's
 * parts fails a test here when its auto-configuration backs off (a moved class, an ordering after a
 * configuration that is no longer there), which a test naming the configurations itself would not
 * see.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BootApplicationTest {

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(ThriftAutoConfigurationTest.OneService.class)
  static class App {}

  static ConfigurableApplicationContext start(String... properties) {
    return new SpringApplicationBuilder(App.class)
        .web(WebApplicationType.NONE)
        .properties(
            "thrift.server.port=0",
            "thrift.server.address=127.0.0.1",
            "thrift.clients.bench.service=io.thriftnio.testkit.gen.BenchService",
            "thrift.clients.bench.local-server=true",
            "management.endpoints.web.exposure.include=health,info",
            "spring.main.banner-mode=off")
        .properties(properties)
        .run();
  }

  @Test
  void serverAndClientWork() throws Exception {
    try (ConfigurableApplicationContext context = start()) {
      BenchService.Iface client =
          context.getBean("thrift.clients.bench.iface", BenchService.Iface.class);
      assertThat(client.get_last_sale("C").symbol).isEqualTo("C@one");
      assertThat(context.getBean(ThriftServerLifecycle.class).state())
          .isEqualTo(ThriftServerLifecycle.State.SERVING);
      assertThat(context.getBean(StartupReport.class).logged())
          .as("nothing is off in a Boot application with Actuator and thrift-nio-micrometer")
          .isEmpty();
    }
  }

  @Test
  void theServerMethodAndPoolMetersAreInBootsRegistry() throws Exception {
    try (ConfigurableApplicationContext context = start()) {
      context.getBean("thrift.clients.bench.iface", BenchService.Iface.class).fired();
      MeterRegistry registry = context.getBean(MeterRegistry.class);
      assertThat(registry.find("thrift.server.requests").tag("method", "fired").timer())
          .as("thrift.server.requests{method=fired} in Boot's MeterRegistry")
          .isNotNull();
      assertThat(registry.find("thrift.server.connections").tag("server", "thrift").gauge())
          .as("thrift.server.connections{server=thrift}")
          .isNotNull();
      assertThat(registry.find("thrift.server.calls").meters())
          .as("thrift.server.calls")
          .isNotEmpty();
      assertThat(registry.find("thrift.pool.connections").tag("pool", "bench").gauges())
          .as("thrift.pool.connections{pool=bench}")
          .isNotEmpty();
      assertThat(registry.find("thrift.pool.borrow").tag("pool", "bench").meters())
          .as("thrift.pool.borrow{pool=bench}")
          .isNotEmpty();
    }
  }

  @Test
  void theServerAndClientsHealthAreInBootsRegistry() throws Exception {
    try (ConfigurableApplicationContext context = start()) {
      context.getBean("thrift.clients.bench.iface", BenchService.Iface.class).fired();
      HealthContributorRegistry health = context.getBean(HealthContributorRegistry.class);
      assertThat(health.getContributor("thriftServer"))
          .as("the thriftServer health contributor")
          .isInstanceOf(HealthIndicator.class);
      assertThat(((HealthIndicator) health.getContributor("thriftServer")).health().getStatus())
          .isEqualTo(Status.UP);
      assertThat(health.getContributor("thriftClients"))
          .as("the thriftClients health contributor")
          .isInstanceOf(HealthIndicator.class);
      assertThat(((HealthIndicator) health.getContributor("thriftClients")).health().getStatus())
          .isEqualTo(Status.UP);
    }
  }

  @Test
  void actuatorInfoHasThrift() {
    try (ConfigurableApplicationContext context = start()) {
      Map<String, Object> info = context.getBean(InfoEndpoint.class).info();
      assertThat(info).as("/actuator/info").containsKey("thrift");
      assertThat(info.get("thrift").toString())
          .contains("version=0.", "wireKinds=[FRAMED]", "clients={bench=ThriftClientPool}");
    }
  }
}
