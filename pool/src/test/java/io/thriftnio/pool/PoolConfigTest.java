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
    assertThat(c.minIdlePerEndpoint()).isZero();
    assertThat(c.borrowTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.maxWaiting()).isEqualTo(10_000);
    assertThat(c.testOnBorrow()).isTrue();
    assertThat(c.idleTimeout()).isEqualTo(Duration.ofMinutes(10));
    assertThat(c.evictionInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.balancer()).isEqualTo(Balancer.POWER_OF_TWO_CHOICES);
    assertThat(c.endpointBackoff()).isEqualTo(Duration.ofSeconds(1));
    assertThat(c.maxEndpointBackoff()).isEqualTo(Duration.ofSeconds(2));
    assertThat(c.maxEjectionBackoff()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.jmxName()).as("JMX off unless asked").isNull();
    assertThat(c.retryBudgetRatio()).isEqualTo(0.1);
    assertThat(c.minRetriesPerSecond()).isEqualTo(10);
    assertThat(c.retryBudgetWindow()).isEqualTo(Duration.ofSeconds(10));
    assertThat(c.callDeadline()).as("no deadline unless asked").isZero();
    assertThat(c.ejectAfterConsecutiveFailures()).isEqualTo(5);
  }

  @Test
  void ejectionAtTheBoundary() {
    assertThat(PoolConfig.builder().ejectAfterConsecutiveFailures(0).build())
        .extracting(PoolConfig::ejectAfterConsecutiveFailures)
        .isEqualTo(0);
    assertThatThrownBy(() -> PoolConfig.builder().ejectAfterConsecutiveFailures(-1).build())
        .hasMessage("ejectAfterConsecutiveFailures: -1 (expected: >= 0)");
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
    PoolConfig off = PoolConfig.builder().retryBudgetRatio(0).minRetriesPerSecond(0).build();
    assertThat(off.retryBudgetRatio()).isZero();
    assertThat(PoolConfig.builder().retryBudgetRatio(1000).build().retryBudgetRatio())
        .isEqualTo(1000);
    assertThatThrownBy(() -> PoolConfig.builder().retryBudgetRatio(1000.5).build())
        .hasMessage("retryBudgetRatio: 1000.5 (expected: >= 0 and <= 1000)");
    assertThatThrownBy(() -> PoolConfig.builder().retryBudgetRatio(-0.1).build())
        .hasMessage("retryBudgetRatio: -0.1 (expected: >= 0 and <= 1000)");
    assertThatThrownBy(() -> PoolConfig.builder().retryBudgetRatio(Double.NaN).build())
        .hasMessage("retryBudgetRatio: NaN (expected: >= 0 and <= 1000)");
    assertThatThrownBy(() -> PoolConfig.builder().minRetriesPerSecond(-1).build())
        .hasMessage("minRetriesPerSecond: -1 (expected: >= 0)");
    assertThat(
            PoolConfig.builder()
                .retryBudgetWindow(Duration.ofMillis(10))
                .build()
                .retryBudgetWindow())
        .isEqualTo(Duration.ofMillis(10));
    assertThatThrownBy(() -> PoolConfig.builder().retryBudgetWindow(Duration.ofMillis(9)).build())
        .hasMessage("retryBudgetWindow: PT0.009S (expected: >= PT0.01S)");
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
    assertThatThrownBy(() -> PoolConfig.builder().minIdlePerEndpoint(9).build())
        .hasMessage("minIdlePerEndpoint: 9 (expected: <= maxIdlePerEndpoint: 8)");
    assertThatThrownBy(() -> PoolConfig.builder().minIdlePerEndpoint(-1).build())
        .hasMessage("minIdlePerEndpoint: -1 (expected: >= 0)");
    assertThatThrownBy(() -> PoolConfig.builder().borrowTimeout(Duration.ofMillis(-1)).build())
        .hasMessageStartingWith("borrowTimeout: PT-0.001S (expected: >= 0");
    assertThat(PoolConfig.builder().borrowTimeout(Duration.ZERO).build().borrowTimeout()).isZero();
    assertThat(PoolConfig.builder().maxWaiting(1).build().maxWaiting()).isEqualTo(1);
    assertThatThrownBy(() -> PoolConfig.builder().maxWaiting(0).build())
        .hasMessage("maxWaiting: 0 (expected: > 0)");
    assertThatThrownBy(() -> PoolConfig.builder().endpointBackoff(Duration.ZERO).build())
        .hasMessage("endpointBackoff: PT0S (expected: > 0)");
    assertThatThrownBy(
            () ->
                PoolConfig.builder()
                    .endpointBackoff(Duration.ofSeconds(2))
                    .maxEndpointBackoff(Duration.ofSeconds(1))
                    .build())
        .hasMessage("maxEndpointBackoff: PT1S (expected: >= endpointBackoff: PT2S)");
    assertThatThrownBy(
            () ->
                PoolConfig.builder()
                    .endpointBackoff(Duration.ofSeconds(2))
                    .maxEndpointBackoff(Duration.ofSeconds(2))
                    .maxEjectionBackoff(Duration.ofSeconds(1))
                    .build())
        .hasMessage("maxEjectionBackoff: PT1S (expected: >= endpointBackoff: PT2S)");
    assertThatThrownBy(() -> PoolConfig.builder().balancer(null).build())
        .hasMessage("balancer: null (expected: not null)");
    assertThatThrownBy(() -> PoolConfig.builder().jmxName(" ").build())
        .hasMessageContaining("jmxName");
  }

  @Test
  void statsFormatIsTheOneErrorsUse() {
    PoolStats s = new PoolStats(3, 2, 1, 5, 10, 4, 1, 1, 0, 0, 0, 0, 0);
    assertThat(s.gauges()).isEqualTo("total=3, active=2, idle=1, waiting=5");
    assertThat(s.toString())
        .startsWith("PoolStats{total=3, active=2, idle=1, waiting=5, borrowed=10");
  }
}
