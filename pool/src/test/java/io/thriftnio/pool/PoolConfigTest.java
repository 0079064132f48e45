package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PoolConfigTest {

  @Test
  void everyDefault() {
    PoolConfig c = PoolConfig.defaults();
    assertThat(c.maxTotal()).isEqualTo(64);
    assertThat(c.maxPerEndpoint()).isEqualTo(8);
    assertThat(c.maxIdlePerEndpoint()).isEqualTo(8);
    assertThat(c.borrowTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.borrowQueueCapacity()).isEqualTo(10_000);
    assertThat(c.balancer()).isEqualTo(Balancer.POWER_OF_TWO_CHOICES);
    assertThat(c.jmxName()).as("JMX off unless asked").isNull();
    assertThat(c.callDeadline()).as("no deadline unless asked").isZero();
    assertThat(c.idleConnections()).isEqualTo(IdleConnectionsConfig.defaults());
    assertThat(c.retryBudget()).isEqualTo(RetryBudgetConfig.defaults());
    assertThat(c.endpointHealth()).isEqualTo(EndpointHealthConfig.defaults());

    IdleConnectionsConfig idle = IdleConnectionsConfig.defaults();
    assertThat(idle.timeout()).isEqualTo(Duration.ofMinutes(10));
    assertThat(idle.evictionInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(idle.minPerEndpoint()).isZero();
    assertThat(idle.testOnBorrow()).isTrue();

    RetryBudgetConfig budget = RetryBudgetConfig.defaults();
    assertThat(budget.ratio()).isEqualTo(0.1);
    assertThat(budget.minRetriesPerSecond()).isEqualTo(10);
    assertThat(budget.window()).isEqualTo(Duration.ofSeconds(10));

    EndpointHealthConfig health = EndpointHealthConfig.defaults();
    assertThat(health.backoff()).isEqualTo(Duration.ofSeconds(1));
    assertThat(health.maxBackoff()).isEqualTo(Duration.ofSeconds(2));
    assertThat(health.maxEjectionBackoff()).isEqualTo(Duration.ofSeconds(30));
    assertThat(health.ejectAfterConsecutiveFailures()).isEqualTo(5);
  }

  @Test
  void ejectionAtTheBoundary() {
    assertThat(EndpointHealthConfig.builder().ejectAfterConsecutiveFailures(0).build())
        .extracting(EndpointHealthConfig::ejectAfterConsecutiveFailures)
        .isEqualTo(0);
    assertThatThrownBy(
            () -> EndpointHealthConfig.builder().ejectAfterConsecutiveFailures(-1).build())
        .hasMessage("ejectAfterConsecutiveFailures: -1 (expected: >= 0)");
  }

  @Test
  void backoffsAtTheBoundary() {
    assertThatThrownBy(() -> EndpointHealthConfig.builder().backoff(Duration.ZERO).build())
        .hasMessage("backoff: PT0S (expected: > 0)");
    assertThatThrownBy(() -> EndpointHealthConfig.builder().maxBackoff(null).build())
        .hasMessage("maxBackoff: null (expected: > 0)");
    EndpointHealthConfig equal =
        EndpointHealthConfig.builder()
            .backoff(Duration.ofSeconds(2))
            .maxBackoff(Duration.ofSeconds(2))
            .maxEjectionBackoff(Duration.ofSeconds(2))
            .build();
    assertThat(equal.maxBackoff()).isEqualTo(equal.backoff());
    assertThat(equal.maxEjectionBackoff()).isEqualTo(equal.backoff());
    assertThatThrownBy(
            () ->
                EndpointHealthConfig.builder()
                    .backoff(Duration.ofSeconds(2))
                    .maxBackoff(Duration.ofSeconds(1))
                    .build())
        .hasMessage("maxBackoff: PT1S (expected: >= backoff: PT2S)");
    assertThatThrownBy(
            () ->
                EndpointHealthConfig.builder()
                    .backoff(Duration.ofSeconds(2))
                    .maxBackoff(Duration.ofSeconds(2))
                    .maxEjectionBackoff(Duration.ofSeconds(1))
                    .build())
        .hasMessage("maxEjectionBackoff: PT1S (expected: >= backoff: PT2S)");
  }

  @Test
  void idleConnectionsAtTheBoundary() {
    assertThat(IdleConnectionsConfig.builder().timeout(Duration.ZERO).build().timeout()).isZero();
    assertThatThrownBy(() -> IdleConnectionsConfig.builder().timeout(Duration.ofMillis(-1)).build())
        .hasMessageStartingWith("idleTimeout: PT-0.001S (expected: >= 0");
    assertThatThrownBy(
            () -> IdleConnectionsConfig.builder().evictionInterval(Duration.ofMillis(-1)).build())
        .hasMessageStartingWith("evictionInterval: PT-0.001S (expected: >= 0");
    assertThatThrownBy(() -> IdleConnectionsConfig.builder().minPerEndpoint(-1).build())
        .hasMessage("minIdlePerEndpoint: -1 (expected: >= 0)");
    IdleConnectionsConfig nine = IdleConnectionsConfig.builder().minPerEndpoint(9).build();
    assertThatThrownBy(() -> PoolConfig.builder().idleConnections(nine).build())
        .hasMessage("minIdlePerEndpoint: 9 (expected: <= maxIdlePerEndpoint: 8)");
    assertThat(
            PoolConfig.builder()
                .maxIdlePerEndpoint(8)
                .idleConnections(IdleConnectionsConfig.builder().minPerEndpoint(8).build())
                .build()
                .idleConnections()
                .minPerEndpoint())
        .isEqualTo(8);
  }

  @Test
  void nestedSettingsAreRequired() {
    assertThatThrownBy(() -> PoolConfig.builder().idleConnections(null).build())
        .hasMessage("idleConnections: null (expected: not null)");
    assertThatThrownBy(() -> PoolConfig.builder().retryBudget(null).build())
        .hasMessage("retryBudget: null (expected: not null)");
    assertThatThrownBy(() -> PoolConfig.builder().endpointHealth(null).build())
        .hasMessage("endpointHealth: null (expected: not null)");
  }

  @Test
  void settingsAreValuesThatNameEveryField() {
    RetryBudgetConfig budget =
        RetryBudgetConfig.builder()
            .ratio(0.2)
            .minRetriesPerSecond(3)
            .window(Duration.ofSeconds(5))
            .build();
    assertThat(budget)
        .isEqualTo(
            RetryBudgetConfig.builder()
                .ratio(0.2)
                .minRetriesPerSecond(3)
                .window(Duration.ofSeconds(5))
                .build())
        .hasSameHashCodeAs(
            RetryBudgetConfig.builder()
                .ratio(0.2)
                .minRetriesPerSecond(3)
                .window(Duration.ofSeconds(5))
                .build())
        .isNotEqualTo(RetryBudgetConfig.defaults());
    assertThat(budget.toString())
        .isEqualTo("RetryBudgetConfig{ratio=0.2, minRetriesPerSecond=3, window=PT5S}");

    EndpointHealthConfig health =
        EndpointHealthConfig.builder().ejectAfterConsecutiveFailures(3).build();
    assertThat(health)
        .isEqualTo(EndpointHealthConfig.builder().ejectAfterConsecutiveFailures(3).build())
        .hasSameHashCodeAs(EndpointHealthConfig.builder().ejectAfterConsecutiveFailures(3).build())
        .isNotEqualTo(EndpointHealthConfig.defaults());
    assertThat(health.toString())
        .isEqualTo(
            "EndpointHealthConfig{backoff=PT1S, maxBackoff=PT2S, maxEjectionBackoff=PT30S,"
                + " ejectAfterConsecutiveFailures=3}");

    IdleConnectionsConfig idle = IdleConnectionsConfig.builder().testOnBorrow(false).build();
    assertThat(idle)
        .isEqualTo(IdleConnectionsConfig.builder().testOnBorrow(false).build())
        .hasSameHashCodeAs(IdleConnectionsConfig.builder().testOnBorrow(false).build())
        .isNotEqualTo(IdleConnectionsConfig.defaults());
    assertThat(idle.toString())
        .isEqualTo(
            "IdleConnectionsConfig{timeout=PT10M, evictionInterval=PT30S, minPerEndpoint=0,"
                + " testOnBorrow=false}");

    assertThat(PoolConfig.builder().retryBudget(budget).endpointHealth(health).build().toString())
        .contains("retryBudget=" + budget, "endpointHealth=" + health, "idleConnections=");
  }

  @Test
  void callDeadlineAtTheBoundary() {
    assertThat(PoolConfig.builder().callDeadline(Duration.ofNanos(1)).build().callDeadline())
        .isEqualTo(Duration.ofNanos(1));
    assertThatThrownBy(() -> PoolConfig.builder().callDeadline(Duration.ofMillis(-1)).build())
        .hasMessageStartingWith("callDeadline: PT-0.001S (expected: >= 0");
  }

  @Test
  void retryBudgetAtTheBoundary() {
    RetryBudgetConfig off = RetryBudgetConfig.builder().ratio(0).minRetriesPerSecond(0).build();
    assertThat(off.ratio()).isZero();
    assertThat(RetryBudgetConfig.builder().ratio(1000).build().ratio()).isEqualTo(1000);
    assertThatThrownBy(() -> RetryBudgetConfig.builder().ratio(1000.5).build())
        .hasMessage("retryBudgetRatio: 1000.5 (expected: >= 0 and <= 1000)");
    assertThatThrownBy(() -> RetryBudgetConfig.builder().ratio(-0.1).build())
        .hasMessage("retryBudgetRatio: -0.1 (expected: >= 0 and <= 1000)");
    assertThatThrownBy(() -> RetryBudgetConfig.builder().ratio(Double.NaN).build())
        .hasMessage("retryBudgetRatio: NaN (expected: >= 0 and <= 1000)");
    assertThatThrownBy(() -> RetryBudgetConfig.builder().minRetriesPerSecond(-1).build())
        .hasMessage("retryBudgetMinPerSecond: -1 (expected: >= 0)");
    assertThat(RetryBudgetConfig.builder().window(Duration.ofMillis(10)).build().window())
        .isEqualTo(Duration.ofMillis(10));
    assertThatThrownBy(() -> RetryBudgetConfig.builder().window(Duration.ofMillis(9)).build())
        .hasMessage("retryBudgetWindow: PT0.009S (expected: >= PT0.01S)");
    assertThatThrownBy(() -> RetryBudgetConfig.builder().window(null).build())
        .hasMessage("retryBudgetWindow: null (expected: not null)");
  }

  @Test
  void limitsAtTheBoundary() {
    assertThat(PoolConfig.builder().maxTotal(1).maxPerEndpoint(1).maxIdlePerEndpoint(1).build())
        .isNotNull();
    assertThatThrownBy(() -> PoolConfig.builder().maxTotal(0).build())
        .hasMessage("maxTotal: 0 (expected: > 0)");
    assertThatThrownBy(() -> PoolConfig.builder().maxPerEndpoint(0).build())
        .hasMessage("maxPerEndpoint: 0 (expected: > 0)");
    assertThatThrownBy(() -> PoolConfig.builder().maxPerEndpoint(4).maxIdlePerEndpoint(5).build())
        .hasMessage("maxIdlePerEndpoint: 5 (expected: <= maxPerEndpoint: 4)");
    assertThat(PoolConfig.builder().maxPerEndpoint(4).maxIdlePerEndpoint(4).build()).isNotNull();
    assertThatThrownBy(() -> PoolConfig.builder().borrowTimeout(Duration.ofMillis(-1)).build())
        .hasMessageStartingWith("borrowTimeout: PT-0.001S (expected: >= 0");
    assertThat(PoolConfig.builder().borrowTimeout(Duration.ZERO).build().borrowTimeout()).isZero();
    assertThat(PoolConfig.builder().borrowQueueCapacity(1).build().borrowQueueCapacity())
        .isEqualTo(1);
    PoolConfig.Builder noWaiting =
        PoolConfig.builder().borrowQueueCapacity(0); // build() refuses it
    assertThatThrownBy(noWaiting::build).hasMessage("borrowQueueCapacity: 0 (expected: > 0)");
    assertThatThrownBy(() -> PoolConfig.builder().balancer(null).build())
        .hasMessage("balancer: null (expected: not null)");
    assertThatThrownBy(() -> PoolConfig.builder().jmxName(" ").build())
        .hasMessageContaining("jmxName");
  }

  @Test
  void statsFormatIsTheOneErrorsUse() {
    PoolStats s = new PoolStats(3, 2, 1, 5, 10, 4, 1, 1, 0, 0, 0, 0, 0, 0);
    assertThat(s.gauges()).isEqualTo("total=3, active=2, idle=1, waiting=5");
    assertThat(s.toString())
        .startsWith("PoolStats{total=3, active=2, idle=1, waiting=5, borrowed=10");
  }
}
