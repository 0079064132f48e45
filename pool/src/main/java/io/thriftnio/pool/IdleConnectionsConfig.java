package io.thriftnio.pool;

import io.thriftnio.core.util.internal.Checks;
import java.time.Duration;
import java.util.Objects;

/**
 * The upkeep of a pool's idle connections: how long one may sit idle ({@link #timeout()}), how
 * often the evictor looks ({@link #evictionInterval()}), how many it keeps open per endpoint
 * ({@link #minPerEndpoint()}), and whether one is checked before it is lent ({@link
 * #testOnBorrow()}). How many idle connections a pool may keep is a limit, {@link
 * PoolConfig#maxIdlePerEndpoint()}.
 *
 * <p>Immutable; build one with {@link #builder()}, or take {@link #defaults()}, and hand it to
 * {@link PoolConfig.Builder#idleConnections(IdleConnectionsConfig)}:
 *
 * <pre>{@code
 * PoolConfig config = PoolConfig.builder()
 *     .idleConnections(IdleConnectionsConfig.builder().timeout(Duration.ofMinutes(1)).build())
 *     .build();
 * }</pre>
 */
final class IdleConnectionsConfig {

  /** Default {@link Builder#timeout(Duration)}: 10 minutes. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);

  /** Default {@link Builder#evictionInterval(Duration)}: 30 seconds. */
  public static final Duration DEFAULT_EVICTION_INTERVAL = Duration.ofSeconds(30);

  /** Default {@link Builder#minPerEndpoint(int)}: {@value}. */
  public static final int DEFAULT_MIN_PER_ENDPOINT = 0;

  private static final IdleConnectionsConfig DEFAULTS = builder().build();

  private final Duration timeout;
  private final Duration evictionInterval;
  private final int minPerEndpoint;
  private final boolean testOnBorrow;

  private IdleConnectionsConfig(Builder b) {
    this.timeout = b.timeout;
    this.evictionInterval = b.evictionInterval;
    this.minPerEndpoint = b.minPerEndpoint;
    this.testOnBorrow = b.testOnBorrow;
  }

  /** A new builder, starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** The upkeep with every default: closed after 10 min idle, evictor every 30 s, none kept. */
  public static IdleConnectionsConfig defaults() {
    return DEFAULTS;
  }

  /**
   * How long a connection may sit idle before the evictor closes it, zero keeps it forever; default
   * 10 min.
   */
  public Duration timeout() {
    return timeout;
  }

  /**
   * Time between evictor runs, zero turns the evictor (and {@link #minPerEndpoint()} upkeep) off;
   * default 30 s.
   */
  public Duration evictionInterval() {
    return evictionInterval;
  }

  /**
   * Idle connections the evictor keeps open per endpoint; default {@value
   * #DEFAULT_MIN_PER_ENDPOINT}.
   */
  public int minPerEndpoint() {
    return minPerEndpoint;
  }

  /** Whether an idle connection is validated before it is lent; default {@code true}. */
  public boolean testOnBorrow() {
    return testOnBorrow;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IdleConnectionsConfig other
        && timeout.equals(other.timeout)
        && evictionInterval.equals(other.evictionInterval)
        && minPerEndpoint == other.minPerEndpoint
        && testOnBorrow == other.testOnBorrow;
  }

  @Override
  public int hashCode() {
    return Objects.hash(timeout, evictionInterval, minPerEndpoint, testOnBorrow);
  }

  @Override
  public String toString() {
    return "IdleConnectionsConfig{timeout="
        + timeout
        + ", evictionInterval="
        + evictionInterval
        + ", minPerEndpoint="
        + minPerEndpoint
        + ", testOnBorrow="
        + testOnBorrow
        + '}';
  }

  /** Builds an {@link IdleConnectionsConfig}; every value is checked in {@link #build()}. */
  public static final class Builder {
    private Duration timeout = DEFAULT_TIMEOUT;
    private Duration evictionInterval = DEFAULT_EVICTION_INTERVAL;
    private int minPerEndpoint = DEFAULT_MIN_PER_ENDPOINT;
    private boolean testOnBorrow = true;

    private Builder() {}

    /**
     * How long a connection may sit idle before the evictor closes it. Zero keeps idle connections
     * forever. Default {@link #DEFAULT_TIMEOUT} (10 min).
     *
     * @param timeout {@code >= 0}
     * @return this builder
     */
    public Builder timeout(Duration timeout) {
      this.timeout = timeout;
      return this;
    }

    /**
     * Time between evictor runs, which close connections idle for longer than {@link
     * #timeout(Duration)}, validate the others and top up {@link #minPerEndpoint(int)}. Zero turns
     * the evictor off. Default {@link #DEFAULT_EVICTION_INTERVAL} (30 s).
     *
     * @param evictionInterval {@code >= 0}
     * @return this builder
     */
    public Builder evictionInterval(Duration evictionInterval) {
      this.evictionInterval = evictionInterval;
      return this;
    }

    /**
     * Idle connections the evictor opens and keeps per endpoint (needs a non-zero {@link
     * #evictionInterval(Duration)}). Default {@value #DEFAULT_MIN_PER_ENDPOINT}.
     *
     * @param minPerEndpoint {@code >= 0}, {@code <= } {@link PoolConfig#maxIdlePerEndpoint()}
     *     (checked when the pool configuration is built)
     * @return this builder
     */
    public Builder minPerEndpoint(int minPerEndpoint) {
      this.minPerEndpoint = minPerEndpoint;
      return this;
    }

    /**
     * Whether an idle connection is validated before it is lent: open, no unread bytes, the peer
     * has not closed it (where the transport lets us look without blocking), and the pool's
     * validator, if any. No request is sent. Default {@code true}.
     *
     * @param testOnBorrow whether to validate on borrow
     * @return this builder
     */
    public Builder testOnBorrow(boolean testOnBorrow) {
      this.testOnBorrow = testOnBorrow;
      return this;
    }

    /**
     * Checks every value and builds the upkeep settings.
     *
     * @return the settings
     * @throws IllegalArgumentException naming the first value out of range
     */
    public IdleConnectionsConfig build() {
      Checks.nonNegative("idleTimeout", timeout);
      Checks.nonNegative("evictionInterval", evictionInterval);
      Checks.nonNegative("minIdlePerEndpoint", minPerEndpoint);
      return new IdleConnectionsConfig(this);
    }
  }
}
