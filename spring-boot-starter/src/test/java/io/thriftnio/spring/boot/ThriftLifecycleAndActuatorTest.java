package io.thriftnio.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.web.server.context.WebServerGracefulShutdownLifecycle;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

/** Lifecycle phase and drain, Micrometer and Actuator beans with and without their triggers. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ThriftLifecycleAndActuatorTest {

  static final ApplicationContextRunner RUNNER =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ThriftMetricsAutoConfiguration.class,
                  ThriftAutoConfiguration.class,
                  ThriftActuatorAutoConfiguration.class))
          .withUserConfiguration(ThriftAutoConfigurationTest.OneService.class)
          .withPropertyValues(
              "thrift.server.port=0",
              "thrift.server.address=127.0.0.1",
              "thrift.clients.bench.service=io.thriftnio.testkit.gen.BenchService",
              "thrift.clients.bench.local-server=true");

  @Test
  void stopsInThePhaseOfSpringBootsGracefulWebServerShutdown() {
    assertThat(ThriftServerLifecycle.PHASE)
        .isEqualTo(WebServerGracefulShutdownLifecycle.SMART_LIFECYCLE_PHASE);
  }

  /**
   * Stands for Spring Boot's web server, which stops in the phase below the graceful shutdown's
   * ({@code WebServerStartStopLifecycle}): it records the Thrift server's state when stopped.
   */
  static final class WebServerStop implements SmartLifecycle {
    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 2048;
    final ObjectProvider<ThriftServerLifecycle> thrift;
    final List<ThriftServerLifecycle.State> seenAtStop = new CopyOnWriteArrayList<>();
    volatile boolean running;

    WebServerStop(ObjectProvider<ThriftServerLifecycle> thrift) {
      this.thrift = thrift;
    }

    @Override
    public void start() {
      running = true;
    }

    @Override
    public void stop() {
      seenAtStop.add(thrift.getObject().state());
      running = false;
    }

    @Override
    public boolean isRunning() {
      return running;
    }

    @Override
    public int getPhase() {
      return PHASE;
    }
  }

  @Test
  void theDrainIsOverBeforeThePhaseInWhichTheWebServerStops() {
    RUNNER
        .withUserConfiguration(WebServerConfig.class)
        .run(
            context -> {
              WebServerStop web = context.getBean(WebServerStop.class);
              assertThat(web.isRunning()).isTrue();
              context.close();
              assertThat(web.seenAtStop).containsExactly(ThriftServerLifecycle.State.STOPPED);
            });
  }

  @Configuration(proxyBeanMethods = false)
  static class WebServerConfig {
    @Bean
    WebServerStop webServerStop(ObjectProvider<ThriftServerLifecycle> thrift) {
      return new WebServerStop(thrift);
    }
  }

  /** A handler whose sleep waits for the test's word instead. */
  static class Held extends BenchHandler {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public void sleep(int millis) {
      entered.countDown();
      try {
        release.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Test
  void closingTheContextDrainsACallInFlightWhileHealthSaysOutOfService() throws Exception {
    Held held = HeldConfig.HELD;
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                ThriftAutoConfiguration.class, ThriftActuatorAutoConfiguration.class))
        .withUserConfiguration(HeldConfig.class)
        .withPropertyValues(
            "thrift.server.port=0",
            "thrift.server.address=127.0.0.1",
            "thrift.server.drain-timeout=20s",
            "thrift.clients.bench.service=io.thriftnio.testkit.gen.BenchService",
            "thrift.clients.bench.local-server=true")
        .run(
            context -> {
              HealthIndicator health =
                  context.getBean("thriftServerHealthIndicator", HealthIndicator.class);
              assertThat(health.health().getStatus()).isEqualTo(Status.UP);
              BenchService.Iface client =
                  context.getBean("thrift.clients.bench.iface", BenchService.Iface.class);
              CompletableFuture<Void> call =
                  CompletableFuture.runAsync(
                      () -> {
                        try {
                          client.sleep(1);
                        } catch (Exception e) {
                          throw new IllegalStateException(e);
                        }
                      });
              assertThat(held.entered.await(20, TimeUnit.SECONDS)).isTrue();
              CompletableFuture<Void> close = CompletableFuture.runAsync(context::close);
              awaitStatus(health, Status.OUT_OF_SERVICE);
              assertThat(close).isNotDone();
              held.release.countDown();
              call.get(20, TimeUnit.SECONDS); // the call in flight completed, without error
              close.get(30, TimeUnit.SECONDS);
              assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
            });
  }

  @Configuration(proxyBeanMethods = false)
  static class HeldConfig {
    static final Held HELD = new Held();

    @Bean
    @ThriftService
    BenchService.Iface heldBench() {
      return HELD;
    }
  }

  private static void awaitStatus(HealthIndicator health, Status status)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!health.health().getStatus().equals(status)) {
      assertThat(System.nanoTime()).as("health reached %s", status).isLessThan(deadline);
      Thread.sleep(10); // polling a condition with a deadline
    }
  }

  @Test
  void withAMeterRegistryTheServerMethodAndPoolMetersAreBound() {
    RUNNER
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .run(
            context -> {
              assertThat(context).hasBean("thriftMethodTimers").hasBean("thriftMeterBinding");
              context.getBean("thrift.clients.bench.iface", BenchService.Iface.class).fired();
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              assertThat(
                      registry.get("thrift.server.requests").tag("method", "fired").timer().count())
                  .isEqualTo(1);
              assertThat(registry.get("thrift.server.connections").tag("server", "thrift").gauge())
                  .isNotNull();
              assertThat(registry.get("thrift.pool.connections").tag("pool", "bench").gauges())
                  .isNotEmpty();
            });
  }

  @Test
  void withoutAMeterRegistryNoMeters() {
    RUNNER.run(
        context ->
            assertThat(context)
                .hasNotFailed()
                .doesNotHaveBean("thriftMethodTimers")
                .doesNotHaveBean("thriftMeterBinding"));
  }

  @Test
  void withoutMicrometerOnTheClassPathNoMeters() {
    RUNNER
        .withClassLoader(new FilteredClassLoader(MeterRegistry.class))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("thriftMeterBinding"));
  }

  @Test
  void healthAndInfoOfTheServerAndThePools() {
    RUNNER.run(
        context -> {
          HealthIndicator server =
              context.getBean("thriftServerHealthIndicator", HealthIndicator.class);
          assertThat(server.health().getStatus()).isEqualTo(Status.UP);
          assertThat(server.health().getDetails()).containsKeys("port", "services");
          context.getBean("thrift.clients.bench.iface", BenchService.Iface.class).fired();
          HealthIndicator clients =
              context.getBean("thriftClientsHealthIndicator", HealthIndicator.class);
          assertThat(clients.health().getStatus()).isEqualTo(Status.UP);
          assertThat(clients.health().getDetails().get("bench").toString())
              .contains("endpoints={127.0.0.1:", "=UP}");
          Info.Builder info = new Info.Builder();
          context.getBean("thriftInfoContributor", InfoContributor.class).contribute(info);
          assertThat(info.build().getDetails().get("thrift").toString())
              .contains("version=0.", "wireKinds=[FRAMED]", "clients={bench=ThriftClientPool}");
        });
  }

  @Test
  void aPoolWhoseEndpointsAreAllDownIsDown() {
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                ThriftAutoConfiguration.class, ThriftActuatorAutoConfiguration.class))
        .withPropertyValues(
            "thrift.clients.gone.service=io.thriftnio.testkit.gen.BenchService",
            "thrift.clients.gone.endpoints=127.0.0.1:1",
            "thrift.clients.gone.connect-timeout=2s")
        .run(
            context -> {
              BenchService.Iface gone =
                  context.getBean("thrift.clients.gone.iface", BenchService.Iface.class);
              try {
                gone.fired();
              } catch (Exception expected) {
                // port 1 refuses: the connect failure marks the endpoint down
              }
              HealthIndicator clients =
                  context.getBean("thriftClientsHealthIndicator", HealthIndicator.class);
              assertThat(clients.health().getStatus()).isEqualTo(Status.DOWN);
              assertThat(clients.health().getDetails().get("gone").toString())
                  .contains("127.0.0.1:1=DOWN");
              assertThat(context).doesNotHaveBean("thriftServerHealthIndicator");
            });
  }

  @Test
  void withoutActuatorNoHealthOrInfoAndTheStartSaysWhatToAdd() {
    RUNNER
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withClassLoader(new FilteredClassLoader(HealthIndicator.class, InfoContributor.class))
        .run(
            context -> {
              assertThat(context)
                  .hasNotFailed()
                  .doesNotHaveBean("thriftServerHealthIndicator")
                  .doesNotHaveBean("thriftInfoContributor");
              assertThat(context.getBean(StartupReport.class).logged())
                  .containsExactly(
                      new StartupReport.Line(
                          false,
                          "thrift-nio: no thriftServer or thriftClients health and no thrift in"
                              + " /actuator/info: Actuator is not on the class path (add the"
                              + " dependency org.springframework.boot:spring-boot-starter-actuator)"));
            });
  }

  @Test
  void withoutBootsHealthModuleInfoStaysAndTheStartWarns() {
    RUNNER
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withClassLoader(new FilteredClassLoader(HealthIndicator.class))
        .run(
            context -> {
              assertThat(context)
                  .hasNotFailed()
                  .doesNotHaveBean("thriftServerHealthIndicator")
                  .hasBean("thriftInfoContributor");
              assertThat(context.getBean(StartupReport.class).logged())
                  .extracting(StartupReport.Line::text)
                  .containsExactly(
                      "thrift-nio: no thriftServer or thriftClients health: Spring Boot's health"
                          + " module is not on the class path (add"
                          + " org.springframework.boot:spring-boot-starter-actuator, or"
                          + " org.springframework.boot:spring-boot-health)");
            });
  }

  @Test
  void withEverythingTheStartSaysNothing() {
    RUNNER
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .run(context -> assertThat(context.getBean(StartupReport.class).logged()).isEmpty());
  }

  @Test
  void micrometerWithoutARegistryIsWarnedOf() {
    RUNNER.run(
        context ->
            assertThat(context.getBean(StartupReport.class).logged())
                .extracting(StartupReport.Line::text)
                .containsExactly(
                    "thrift-nio: no thrift.* meters: thrift-nio-micrometer is on the class path but"
                        + " the application has no MeterRegistry bean (add"
                        + " org.springframework.boot:spring-boot-starter-actuator, which makes one,"
                        + " or define a MeterRegistry bean)"));
  }

  @Test
  void aRegistryWithoutThriftNioMicrometerIsSaid() {
    RUNNER
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withClassLoader(new FilteredClassLoader(StartupReport.METHOD_TIMERS))
        .run(
            context ->
                assertThat(context.getBean(StartupReport.class).logged())
                    .extracting(StartupReport.Line::text)
                    .containsExactly(
                        "thrift-nio: no thrift.* meters: the application has a MeterRegistry but"
                            + " thrift-nio-micrometer is not on the class path (add the dependency"
                            + " io.thriftnio:thrift-nio-micrometer)"));
  }

  @Test
  void aMetricsConfigurationThatBackedOffBesideARegistryIsWarnedOf() {
    // The registry is there but the metrics configuration is not: as on Boot 4 when it was ordered
    // after Boot 3's composite registry configuration.
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                ThriftAutoConfiguration.class, ThriftActuatorAutoConfiguration.class))
        .withUserConfiguration(ThriftAutoConfigurationTest.OneService.class)
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues("thrift.server.port=0", "thrift.server.address=127.0.0.1")
        .run(
            context ->
                assertThat(context.getBean(StartupReport.class).logged())
                    .extracting(StartupReport.Line::text)
                    .containsExactly(
                        "thrift-nio: no thrift.* meters although its modules are on the class"
                            + " path: io.thriftnio.spring.boot.ThriftMetricsAutoConfiguration"
                            + " backed off (excluded, or its conditions did not match: start with"
                            + " --debug for Spring Boot's conditions report)"));
  }

  @Test
  void anApplicationWithNeitherServerNorClientsSaysNothing() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ThriftAutoConfiguration.class))
        .run(context -> assertThat(context.getBean(StartupReport.class).logged()).isEmpty());
  }

  /**
   * Every auto-configuration ours are ordered against by name exists in the Boot on the class path:
   * one that moved (as Boot 3's composite registry configuration did in Boot 4) would silently take
   * its ordering, and so our meters, away.
   */
  @Test
  void theConfigurationsOrderedAgainstByNameExist() {
    for (Class<?> ours :
        List.of(
            ThriftMetricsAutoConfiguration.class,
            ThriftAutoConfiguration.class,
            ThriftActuatorAutoConfiguration.class)) {
      AutoConfiguration a = ours.getAnnotation(AutoConfiguration.class);
      for (String name : concat(a.afterName(), a.beforeName())) {
        assertThat(ClassUtils.isPresent(name, getClass().getClassLoader()))
            .as("%s is ordered against %s", ours.getSimpleName(), name)
            .isTrue();
      }
    }
  }

  private static List<String> concat(String[] a, String[] b) {
    List<String> all = new java.util.ArrayList<>(List.of(a));
    all.addAll(List.of(b));
    return all;
  }
}
