package io.thriftnio.pool;

import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.util.internal.Checks;
import java.time.Duration;
import java.util.Objects;

/**
 * When a pool stops sending to an endpoint and when it tries it again. An endpoint is taken out
 * after a failed connect (down), or after {@link #ejectAfterConsecutiveFailures()} calls in a row
 * that failed in transport (ejected); either way it is skipped for a back-off that starts at {@link
 * #backoff()} and doubles with each consecutive outage step, up to {@link #maxBackoff()} for a down
 * endpoint and {@link #maxEjectionBackoff()} for an ejected one. When the back-off is up, one
 * borrower probes the endpoint, and only a probe that gets a connection brings it back.
 *
 * <p>Immutable; build one with {@link #builder()}, or take {@link #defaults()}, and hand it to
 * {@link PoolConfig.Builder#endpointHealth(EndpointHealthConfig)}:
 *
 * <pre>{@code
 * PoolConfig config = PoolConfig.builder()
 *     .endpointHealth(EndpointHealthConfig.builder().ejectAfterConsecutiveFailures(3).build())
 *     .build();
 * }</pre>
 */
final class EndpointHealthConfig {

  /** Default {@link Builder#backoff(Duration)}: 1 second. */
  public static final Duration DEFAULT_BACKOFF = Duration.ofSeconds(1);

  /**
   * Default {@link Builder#maxBackoff(Duration)}: 2 seconds. With one endpoint, a pool refuses
   * calls while it is down, so this ceiling is also how long callers may be refused after the
   * server accepts again. It costs one connect per pool every 1.6 to 2 s against an endpoint that
   * stays down.
   */
  public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(2);

  /**
   * Default {@link Builder#maxEjectionBackoff(Duration)}: 30 seconds. An ejected endpoint accepts
   * connections but fails calls, so each return costs calls: it is kept out longer than a dead one.
   */
  public static final Duration DEFAULT_MAX_EJECTION_BACKOFF = Duration.ofSeconds(30);

  /**
   * Default {@link Builder#ejectAfterConsecutiveFailures(int)}: {@value}. Low enough to stop
   * sending to a broken endpoint within a handful of calls, high enough that one dropped connection
   * or one slow reply does not take an endpoint out.
   */
  public static final int DEFAULT_EJECT_AFTER_CONSECUTIVE_FAILURES = 5;

  private static final EndpointHealthConfig DEFAULTS = builder().build();

  private final Duration backoff;
  private final Duration maxBackoff;
  private final Duration maxEjectionBackoff;
  private final int ejectAfterConsecutiveFailures;

  private EndpointHealthConfig(Builder b) {
    this.backoff = b.backoff;
    this.maxBackoff = b.maxBackoff;
    this.maxEjectionBackoff = b.maxEjectionBackoff;
    this.ejectAfterConsecutiveFailures = b.ejectAfterConsecutiveFailures;
  }

  /** A new builder, starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** The settings with every default: back-off 1 s up to 2 s (30 s ejected), eject after 5. */
  public static EndpointHealthConfig defaults() {
    return DEFAULTS;
  }

  /**
   * How long an endpoint is skipped the first time it is taken out; default 1 s. See {@link
   * Builder#backoff(Duration)}.
   */
  public Duration backoff() {
    return backoff;
  }

  /**
   * The longest an endpoint is skipped after consecutive connect failures, and so the longest a
   * down endpoint waits for its next probe; default 2 s. See {@link Builder#maxBackoff(Duration)}.
   */
  public Duration maxBackoff() {
    return maxBackoff;
  }

  /**
   * The longest an endpoint is skipped after consecutive ejections; default 30 s. See {@link
   * Builder#maxEjectionBackoff(Duration)}.
   */
  public Duration maxEjectionBackoff() {
    return maxEjectionBackoff;
  }

  /**
   * Consecutive call failures in transport that take an endpoint out for a back-off, zero for
   * never; default {@value #DEFAULT_EJECT_AFTER_CONSECUTIVE_FAILURES}. See {@link
   * Builder#ejectAfterConsecutiveFailures(int)}.
   */
  public int ejectAfterConsecutiveFailures() {
    return ejectAfterConsecutiveFailures;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EndpointHealthConfig other
        && backoff.equals(other.backoff)
        && maxBackoff.equals(other.maxBackoff)
        && maxEjectionBackoff.equals(other.maxEjectionBackoff)
        && ejectAfterConsecutiveFailures == other.ejectAfterConsecutiveFailures;
  }

  @Override
  public int hashCode() {
    return Objects.hash(backoff, maxBackoff, maxEjectionBackoff, ejectAfterConsecutiveFailures);
  }

  @Override
  public String toString() {
    return "EndpointHealthConfig{backoff="
        + backoff
        + ", maxBackoff="
        + maxBackoff
        + ", maxEjectionBackoff="
        + maxEjectionBackoff
        + ", ejectAfterConsecutiveFailures="
        + ejectAfterConsecutiveFailures
        + '}';
  }

  /** Builds an {@link EndpointHealthConfig}; every value is checked in {@link #build()}. */
  public static final class Builder {
    private Duration backoff = DEFAULT_BACKOFF;
    private Duration maxBackoff = DEFAULT_MAX_BACKOFF;
    private Duration maxEjectionBackoff = DEFAULT_MAX_EJECTION_BACKOFF;
    private int ejectAfterConsecutiveFailures = DEFAULT_EJECT_AFTER_CONSECUTIVE_FAILURES;

    private Builder() {}

    /**
     * How long an endpoint is skipped after it failed to connect; each consecutive failure doubles
     * it, up to {@link #maxBackoff(Duration)}. When the time is up, one borrow probes the endpoint
     * by connecting to it; exactly one probe at a time goes to a down endpoint, and only a probe
     * that gets a connection brings it back. Each back-off is drawn at random from the 20% below
     * its value (1 s: between 0.8 and 1 s), so that clients that lost an endpoint together do not
     * probe it in step. Default {@link #DEFAULT_BACKOFF} (1 s).
     *
     * @param backoff {@code > 0}
     * @return this builder
     */
    public Builder backoff(Duration backoff) {
      this.backoff = backoff;
      return this;
    }

    /**
     * The longest an endpoint is skipped after consecutive connect failures: the ceiling of the
     * doubling back-off, so a down endpoint is probed again no later than this after its last
     * failure, however long the outage. Ejected endpoints have their own ceiling, {@link
     * #maxEjectionBackoff(Duration)}.
     *
     * <p>What it trades: while every endpoint is down a pool refuses calls at once ({@link
     * PoolException}: {@code no endpoint available: ... down for 606ms more}), so after a long
     * outage callers may be refused for up to this long after the server accepts again; a longer
     * ceiling spares a dead endpoint (one connect per pool per back-off) at that cost. With the
     * default, one pool sends about one connect every 1.6 to 2 s to an endpoint that stays down.
     * Default {@link #DEFAULT_MAX_BACKOFF} (2 s).
     *
     * @param maxBackoff {@code >= backoff}
     * @return this builder
     */
    public Builder maxBackoff(Duration maxBackoff) {
      this.maxBackoff = maxBackoff;
      return this;
    }

    /**
     * The longest an ejected endpoint is skipped ({@link #ejectAfterConsecutiveFailures(int)}): the
     * back-off doubles from {@link #backoff(Duration)} with each ejection that follows without a
     * successful call in between, up to this. An ejected endpoint accepts connections but fails
     * calls, so each return costs a probe and up to {@code ejectAfterConsecutiveFailures} failing
     * calls: it is kept out longer than a dead endpoint, whose return costs nothing. Default {@link
     * #DEFAULT_MAX_EJECTION_BACKOFF} (30 s).
     *
     * @param maxEjectionBackoff {@code >= backoff}
     * @return this builder
     */
    public Builder maxEjectionBackoff(Duration maxEjectionBackoff) {
      this.maxEjectionBackoff = maxEjectionBackoff;
      return this;
    }

    /**
     * Outlier ejection: an endpoint whose calls fail in transport this many times in a row
     * (connection closed or reset, timed out, reply out of step; not declared IDL exceptions nor
     * {@code TApplicationException}s, which are answers) is taken out as a failed connect takes it
     * out: for {@link #backoff(Duration)}, doubling with each ejection that follows without a
     * successful call in between, up to {@link #maxEjectionBackoff(Duration)}; then one borrower
     * probes it and it is back once that borrow succeeds. Counted in {@link PoolStats#ejections()}.
     * The last endpoint up is never ejected: refusing every call would be worse than calls that may
     * fail, so the pool keeps sending to it (and its connect failures still mark it down as
     * before). Zero turns ejection off. Default {@value #DEFAULT_EJECT_AFTER_CONSECUTIVE_FAILURES}.
     *
     * @param ejectAfterConsecutiveFailures {@code >= 0}
     * @return this builder
     */
    public Builder ejectAfterConsecutiveFailures(int ejectAfterConsecutiveFailures) {
      this.ejectAfterConsecutiveFailures = ejectAfterConsecutiveFailures;
      return this;
    }

    /**
     * Checks every value and builds the settings.
     *
     * @return the settings
     * @throws IllegalArgumentException naming the first value out of range
     */
    public EndpointHealthConfig build() {
      Checks.positive("backoff", backoff);
      Checks.positive("maxBackoff", maxBackoff);
      atLeastBackoff("maxBackoff", maxBackoff);
      Checks.positive("maxEjectionBackoff", maxEjectionBackoff);
      atLeastBackoff("maxEjectionBackoff", maxEjectionBackoff);
      Checks.nonNegative("ejectAfterConsecutiveFailures", ejectAfterConsecutiveFailures);
      return new EndpointHealthConfig(this);
    }

    private void atLeastBackoff(String name, Duration ceiling) {
      if (ceiling.compareTo(backoff) < 0) {
        throw new SettingException(name, ceiling, ">= backoff: " + backoff);
      }
    }
  }
}
