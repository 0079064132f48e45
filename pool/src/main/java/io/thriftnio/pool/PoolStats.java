package io.thriftnio.pool;

/**
 * A snapshot of a pool's state and counters. {@code active + idle} is always {@code total}, and
 * {@code total} never exceeds the pool's maximum; under load the gauges and counters are read one
 * after another, so they describe neighbouring moments rather than one.
 *
 * @param total connections open: {@code active + idle}
 * @param active connections lent out, or being opened or closed (for {@link ThriftChannelPool}:
 *     connections with calls in flight; one the evictor is checking is idle)
 * @param idle connections open and unused
 * @param waiting borrowers waiting for a connection
 * @param borrowed borrows that got a connection, since the pool started
 * @param created connections opened
 * @param destroyed connections closed
 * @param invalidated connections closed because a call on them failed or validation failed
 *     (included in {@code destroyed})
 * @param timeouts borrows that gave up after the borrow timeout
 * @param connectFailures connection attempts that failed
 * @param retries second attempts of calls on another endpoint, each taken from the retry budget
 *     ({@link RetryBudgetConfig#ratio()}): after a failed connect, or after a transport error of a
 *     call declared idempotent
 * @param retriesRefused retries the spent budget refused: those calls failed with their own error
 * @param ejections endpoints taken out after {@link
 *     EndpointHealthConfig#ejectAfterConsecutiveFailures()} call failures in a row
 * @param aged connections closed between calls because they reached {@link
 *     PoolBuilder#maxConnectionAge(java.time.Duration)} (included in {@code destroyed}, not in
 *     {@code invalidated})
 * @param notRun calls a server refused without running them (its {@link io.thriftnio.core.NotRun
 *     "not run"} reply), each sent on to another endpoint when one could take it, whatever its
 *     method and outside the retry budget; not failures of the endpoint
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
    long connectFailures,
    long retries,
    long retriesRefused,
    long ejections,
    long aged,
    long notRun) {

  /** Stats without {@code notRun} (0), as they were before that counter. */
  public PoolStats(
      int total,
      int active,
      int idle,
      int waiting,
      long borrowed,
      long created,
      long destroyed,
      long invalidated,
      long timeouts,
      long connectFailures,
      long retries,
      long retriesRefused,
      long ejections,
      long aged) {
    this(
        total,
        active,
        idle,
        waiting,
        borrowed,
        created,
        destroyed,
        invalidated,
        timeouts,
        connectFailures,
        retries,
        retriesRefused,
        ejections,
        aged,
        0);
  }

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
        + ", retries="
        + retries
        + ", retriesRefused="
        + retriesRefused
        + ", ejections="
        + ejections
        + ", aged="
        + aged
        + ", notRun="
        + notRun
        + '}';
  }

  /** These stats with {@code waiting} borrowers waiting instead. */
  PoolStats withWaiting(int waiting) {
    return waiting == this.waiting
        ? this
        : new PoolStats(
            total,
            active,
            idle,
            waiting,
            borrowed,
            created,
            destroyed,
            invalidated,
            timeouts,
            connectFailures,
            retries,
            retriesRefused,
            ejections,
            aged,
            notRun);
  }
}
