package io.thriftnio.pool;

/** Puts every setting of an internal {@link PoolConfig} on a pool builder, for tests. */
final class PoolSettings {
  private PoolSettings() {}

  /** {@code builder} with each of {@code c}'s settings set through its flat setters. */
  static <B extends PoolBuilder<?, B>> B with(B builder, PoolConfig c) {
    return builder
        .maxTotal(c.maxTotal())
        .maxPerEndpoint(c.maxPerEndpoint())
        .maxIdlePerEndpoint(c.maxIdlePerEndpoint())
        .borrowTimeout(c.borrowTimeout())
        .borrowQueueCapacity(c.borrowQueueCapacity())
        .balancer(c.balancer())
        .jmxName(c.jmxName())
        .callDeadline(c.callDeadline())
        .idleTimeout(c.idleConnections().timeout())
        .evictionInterval(c.idleConnections().evictionInterval())
        .minIdlePerEndpoint(c.idleConnections().minPerEndpoint())
        .testOnBorrow(c.idleConnections().testOnBorrow())
        .retryBudgetRatio(c.retryBudget().ratio())
        .retryBudgetMinPerSecond(c.retryBudget().minRetriesPerSecond())
        .retryBudgetWindow(c.retryBudget().window())
        .backoff(c.endpointHealth().backoff())
        .maxBackoff(c.endpointHealth().maxBackoff())
        .maxEjectionBackoff(c.endpointHealth().maxEjectionBackoff())
        .ejectAfterConsecutiveFailures(c.endpointHealth().ejectAfterConsecutiveFailures());
  }
}
