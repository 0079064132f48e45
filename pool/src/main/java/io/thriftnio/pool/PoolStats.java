package io.thriftnio.pool;

/**
 * A snapshot of a pool's state and counters. {@code active + idle} is always {@code total}, and
 * {@code total} never exceeds the pool's maximum; under load the gauges and counters are read one
 * after another, so they describe neighbouring moments rather than one.
 *
 * <p>A final class, not a record: a counter added later is one more accessor, and code that reads
 * these keeps compiling. Built only by the pools.
 */
public final class PoolStats {
  private final int total;
  private final int active;
  private final int idle;
  private final int waiting;
  private final long borrowed;
  private final long created;
  private final long destroyed;
  private final long invalidated;
  private final long timeouts;
  private final long connectFailures;
  private final long retries;
  private final long retriesRefused;
  private final long ejections;
  private final long aged;
  private final long notRun;

  /** The pools' constructor, in the order of the accessors. */
  PoolStats(
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
    this.total = total;
    this.active = active;
    this.idle = idle;
    this.waiting = waiting;
    this.borrowed = borrowed;
    this.created = created;
    this.destroyed = destroyed;
    this.invalidated = invalidated;
    this.timeouts = timeouts;
    this.connectFailures = connectFailures;
    this.retries = retries;
    this.retriesRefused = retriesRefused;
    this.ejections = ejections;
    this.aged = aged;
    this.notRun = notRun;
  }

  /** Stats without {@code notRun} (0). */
  PoolStats(
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

  /** Connections open: {@code active + idle}. */
  public int total() {
    return total;
  }

  /**
   * Connections lent out, or being opened or closed (for {@link ThriftChannelPool}: connections
   * with calls in flight; one the evictor is checking is idle).
   */
  public int active() {
    return active;
  }

  /** Connections open and unused. */
  public int idle() {
    return idle;
  }

  /** Borrowers waiting for a connection. */
  public int waiting() {
    return waiting;
  }

  /** Borrows that got a connection, since the pool started. */
  public long borrowed() {
    return borrowed;
  }

  /** Connections opened. */
  public long created() {
    return created;
  }

  /** Connections closed. */
  public long destroyed() {
    return destroyed;
  }

  /**
   * Connections closed because a call on them failed or validation failed (included in {@code
   * destroyed}).
   */
  public long invalidated() {
    return invalidated;
  }

  /** Borrows that gave up after the borrow timeout. */
  public long timeouts() {
    return timeouts;
  }

  /** Connection attempts that failed. */
  public long connectFailures() {
    return connectFailures;
  }

  /**
   * Second attempts of calls on another endpoint, each taken from the retry budget ({@link
   * PoolBuilder#retryBudgetRatio(double)}): after a failed connect, or after a transport error of a
   * call declared idempotent.
   */
  public long retries() {
    return retries;
  }

  /** Retries the spent budget refused: those calls failed with their own error. */
  public long retriesRefused() {
    return retriesRefused;
  }

  /**
   * Endpoints taken out after {@link PoolBuilder#ejectAfterConsecutiveFailures(int)} call failures
   * in a row.
   */
  public long ejections() {
    return ejections;
  }

  /**
   * Connections closed between calls because they reached {@link
   * PoolBuilder#maxConnectionAge(java.time.Duration)} (included in {@code destroyed}, not in {@code
   * invalidated}).
   */
  public long aged() {
    return aged;
  }

  /**
   * Calls a server refused without running them (its {@link io.thriftnio.core.NotRun "not run"}
   * reply), each sent on to another endpoint when one could take it, whatever its method and
   * outside the retry budget; not failures of the endpoint .
   */
  public long notRun() {
    return notRun;
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
