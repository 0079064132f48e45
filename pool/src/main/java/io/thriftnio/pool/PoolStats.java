package io.thriftnio.pool;

/**
 * A snapshot of a pool's state and counters. The four gauges come from one moment each, not from
 * one moment together, so under load they may not add up exactly.
 *
 * @param total connections open: {@code active + idle}
 * @param active connections lent out (for {@link ThriftChannelPool}: connections with calls in
 *     flight)
 * @param idle connections open and unused
 * @param waiting borrowers waiting for a connection
 * @param borrowed borrows that got a connection, since the pool started
 * @param created connections opened
 * @param destroyed connections closed
 * @param invalidated connections closed because a call on them failed or validation failed
 *     (included in {@code destroyed})
 * @param timeouts borrows that gave up after the borrow timeout
 * @param connectFailures connection attempts that failed
 */
public record PoolStats(
    int total,
    int active,
    int idle,
    int waiting,
    long borrowed,
    long created,
    long destroyed,
    long invalidated,
    long timeouts,
    long connectFailures) {

  /** The gauges as {@code total=, active=, idle=, waiting=}, the form error messages use. */
  public String gauges() {
    return "total=" + total + ", active=" + active + ", idle=" + idle + ", waiting=" + waiting;
  }

  @Override
  public String toString() {
    return "PoolStats{"
        + gauges()
        + ", borrowed="
        + borrowed
        + ", created="
        + created
        + ", destroyed="
        + destroyed
        + ", invalidated="
        + invalidated
        + ", timeouts="
        + timeouts
        + ", connectFailures="
        + connectFailures
        + '}';
  }
}
