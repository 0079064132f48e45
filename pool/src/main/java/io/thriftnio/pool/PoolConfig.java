package io.thriftnio.pool;

import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.util.internal.Checks;
import java.time.Duration;

/**
 * Limits and health settings shared by every pool in this package: connection limits, borrowing,
 * the balancer and the call deadline here; the upkeep of idle connections in an {@link
 * IdleConnectionsConfig}, the retry budget in a {@link RetryBudgetConfig}, endpoint back-off and
 * ejection in an {@link EndpointHealthConfig}. Immutable; build one with {@link #builder()}, or
 * take {@link #defaults()}.
 *
 * <pre>{@code
 * PoolConfig config = PoolConfig.builder()
 *     .maxPerEndpoint(64)
 *     .borrowTimeout(Duration.ofSeconds(2))
 *     .retryBudget(RetryBudgetConfig.builder().ratio(0.2).build())
 *     .endpointHealth(EndpointHealthConfig.builder().ejectAfterConsecutiveFailures(3).build())
 *     .build();
 * }</pre>
 */
final class PoolConfig {

  /** Default {@link Builder#maxTotal(int)}: {@value}. */
  public static final int DEFAULT_MAX_TOTAL = 64;

  /** Default {@link Builder#maxPerEndpoint(int)}: {@value}. */
  public static final int DEFAULT_MAX_PER_ENDPOINT = 8;

  /** Default {@link Builder#maxIdlePerEndpoint(int)}: {@value}. */
  public static final int DEFAULT_MAX_IDLE_PER_ENDPOINT = 8;

  /**
   * Default {@link Builder#borrowQueueCapacity(int)}: {@value}. A waiting call holds its request
   * and a few hundred bytes; ten thousand is room for a burst of ten thousand concurrent callers
   * (the bench drives a thousand) while a caller that outruns the servers for good fails fast
   * instead of growing the heap until every waiter times out.
   */
  public static final int DEFAULT_BORROW_QUEUE_CAPACITY = 10_000;

  /** Default {@link Builder#borrowTimeout(Duration)}: 5 seconds. */
  public static final Duration DEFAULT_BORROW_TIMEOUT = Duration.ofSeconds(5);

  /** Default {@link Builder#callDeadline(Duration)}: zero, no deadline. */
  public static final Duration DEFAULT_CALL_DEADLINE = Duration.ZERO;

  private static final PoolConfig DEFAULTS = builder().build();

  private final int maxTotal;
  private final int maxPerEndpoint;
  private final int maxIdlePerEndpoint;
  private final Duration borrowTimeout;
  private final int borrowQueueCapacity;
  private final Balancer balancer;
  private final String jmxName;
  private final Duration callDeadline;
  private final IdleConnectionsConfig idleConnections;
  private final RetryBudgetConfig retryBudget;
  private final EndpointHealthConfig endpointHealth;
  private final int adaptiveLimit;

  private PoolConfig(Builder b) {
    this.maxTotal = b.maxTotal;
    this.maxPerEndpoint = b.maxPerEndpoint;
    this.maxIdlePerEndpoint = b.maxIdlePerEndpoint;
    this.borrowTimeout = b.borrowTimeout;
    this.borrowQueueCapacity = b.borrowQueueCapacity;
    this.balancer = b.balancer;
    this.jmxName = b.jmxName;
    this.callDeadline = b.callDeadline;
    this.idleConnections = b.idleConnections;
    this.retryBudget = b.retryBudget;
    this.endpointHealth = b.endpointHealth;
    this.adaptiveLimit = b.adaptiveLimit;
  }

  /** A new builder, starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** The configuration with every default. */
  public static PoolConfig defaults() {
    return DEFAULTS;
  }

  /** Connections across all endpoints, in use or idle; default {@value #DEFAULT_MAX_TOTAL}. */
  public int maxTotal() {
    return maxTotal;
  }

  /** Connections to one endpoint, in use or idle; default {@value #DEFAULT_MAX_PER_ENDPOINT}. */
  public int maxPerEndpoint() {
    return maxPerEndpoint;
  }

  /**
   * Idle connections kept per endpoint, more are closed when returned; default {@value
   * #DEFAULT_MAX_IDLE_PER_ENDPOINT}.
   */
  public int maxIdlePerEndpoint() {
    return maxIdlePerEndpoint;
  }

  /**
   * How long a borrow waits for a connection when the limits are reached, zero fails at once;
   * default 5 s.
   */
  public Duration borrowTimeout() {
    return borrowTimeout;
  }

  /**
   * Calls of an async pool that may wait for a connection at once; default {@value
   * #DEFAULT_BORROW_QUEUE_CAPACITY}. See {@link Builder#borrowQueueCapacity(int)}.
   */
  public int borrowQueueCapacity() {
    return borrowQueueCapacity;
  }

  /**
   * How the endpoint of the next borrow is chosen; default {@link Balancer#POWER_OF_TWO_CHOICES}.
   */
  public Balancer balancer() {
    return balancer;
  }

  /** The JMX name prefix, or {@code null} (the default) when JMX registration is off. */
  public String jmxName() {
    return jmxName;
  }

  /**
   * The time a call may take from start to end, waiting for a connection included; zero (the
   * default) for none. See {@link Builder#callDeadline(Duration)}.
   */
  public Duration callDeadline() {
    return callDeadline;
  }

  /**
   * The upkeep of idle connections: idle timeout, evictor, connections kept open, validation on
   * borrow; default {@link IdleConnectionsConfig#defaults()}.
   */
  public IdleConnectionsConfig idleConnections() {
    return idleConnections;
  }

  /**
   * How many calls may be retried on another endpoint; default {@link
   * RetryBudgetConfig#defaults()}.
   */
  public RetryBudgetConfig retryBudget() {
    return retryBudget;
  }

  /**
   * When an endpoint is taken out (connect failures, ejection) and for how long; default {@link
   * EndpointHealthConfig#defaults()}.
   */
  public EndpointHealthConfig endpointHealth() {
    return endpointHealth;
  }

  /**
   * The highest the pool's adaptive limit on calls in flight may go; 0 when off, the default (see
   * {@link Builder#adaptiveLimit(int)}).
   */
  public int adaptiveLimit() {
    return adaptiveLimit;
  }

  @Override
  public String toString() {
    return "PoolConfig{maxTotal="
        + maxTotal
        + ", maxPerEndpoint="
        + maxPerEndpoint
        + ", maxIdlePerEndpoint="
        + maxIdlePerEndpoint
        + ", borrowTimeout="
        + borrowTimeout
        + ", borrowQueueCapacity="
        + borrowQueueCapacity
        + ", balancer="
        + balancer
        + ", jmxName="
        + jmxName
        + ", callDeadline="
        + callDeadline
        + ", idleConnections="
        + idleConnections
        + ", retryBudget="
        + retryBudget
        + ", endpointHealth="
        + endpointHealth
        + (adaptiveLimit == 0 ? "" : ", adaptiveLimit=" + adaptiveLimit)
        + '}';
  }

  /** Builds a {@link PoolConfig}; every value is checked in {@link #build()}. */
  public static final class Builder {
    private int maxTotal = DEFAULT_MAX_TOTAL;
    private int maxPerEndpoint = DEFAULT_MAX_PER_ENDPOINT;
    private int maxIdlePerEndpoint = DEFAULT_MAX_IDLE_PER_ENDPOINT;
    private Duration borrowTimeout = DEFAULT_BORROW_TIMEOUT;
    private int borrowQueueCapacity = DEFAULT_BORROW_QUEUE_CAPACITY;
    private Balancer balancer = Balancer.POWER_OF_TWO_CHOICES;
    private String jmxName;
    private Duration callDeadline = DEFAULT_CALL_DEADLINE;
    private IdleConnectionsConfig idleConnections = IdleConnectionsConfig.defaults();
    private RetryBudgetConfig retryBudget = RetryBudgetConfig.defaults();
    private EndpointHealthConfig endpointHealth = EndpointHealthConfig.defaults();
    private int adaptiveLimit;

    private Builder() {}

    /**
     * Connections across all endpoints, in use or idle. Default {@value #DEFAULT_MAX_TOTAL}.
     *
     * @param maxTotal {@code > 0}
     * @return this builder
     */
    public Builder maxTotal(int maxTotal) {
      this.maxTotal = maxTotal;
      return this;
    }

    /**
     * Connections to one endpoint, in use or idle. Default {@value #DEFAULT_MAX_PER_ENDPOINT}.
     *
     * @param maxPerEndpoint {@code > 0}
     * @return this builder
     */
    public Builder maxPerEndpoint(int maxPerEndpoint) {
      this.maxPerEndpoint = maxPerEndpoint;
      return this;
    }

    /**
     * Idle connections kept per endpoint; a connection returned beyond this is closed. Default
     * {@value #DEFAULT_MAX_IDLE_PER_ENDPOINT}.
     *
     * @param maxIdlePerEndpoint {@code >= 0}, {@code <= maxPerEndpoint}, {@code >=} {@link
     *     IdleConnectionsConfig#minPerEndpoint()}
     * @return this builder
     */
    public Builder maxIdlePerEndpoint(int maxIdlePerEndpoint) {
      this.maxIdlePerEndpoint = maxIdlePerEndpoint;
      return this;
    }

    /**
     * How long a borrow waits when the limits are reached and no connection is idle; then it fails
     * with {@link PoolTimeoutException}. Zero fails at once. Default {@link
     * #DEFAULT_BORROW_TIMEOUT} (5 s).
     *
     * @param borrowTimeout {@code >= 0}
     * @return this builder
     */
    public Builder borrowTimeout(Duration borrowTimeout) {
      this.borrowTimeout = borrowTimeout;
      return this;
    }

    /**
     * Calls of an async pool ({@link ThriftChannelPool}, {@link ThriftAsyncClientPool}) that may
     * wait at once for a connection, in a queue served in arrival order; the call that finds the
     * queue full fails at once with a {@link PoolException} naming the limit. A call that must wait
     * for a connect waits in the queue too, so at least one place is needed; to fail at once
     * instead of waiting for a busy connection, set {@link #borrowTimeout(Duration)} to zero. The
     * sync {@link ThriftClientPool} does not use it (its callers wait on their own threads).
     * Default {@value #DEFAULT_BORROW_QUEUE_CAPACITY}.
     *
     * @param borrowQueueCapacity {@code > 0}
     * @return this builder
     */
    public Builder borrowQueueCapacity(int borrowQueueCapacity) {
      this.borrowQueueCapacity = borrowQueueCapacity;
      return this;
    }

    /**
     * How the endpoint of the next borrow is chosen. Default {@link Balancer#POWER_OF_TWO_CHOICES}.
     *
     * @param balancer not null
     * @return this builder
     */
    public Builder balancer(Balancer balancer) {
      this.balancer = balancer;
      return this;
    }

    /**
     * Registers the pool with JMX under this name prefix. Default {@code null}: no JMX
     * registration.
     *
     * @param jmxName a name usable in a JMX {@code ObjectName}, or {@code null}
     * @return this builder
     */
    public Builder jmxName(String jmxName) {
      this.jmxName = jmxName;
      return this;
    }

    /**
     * The time a call may take in all: waiting for a connection (and connecting), its retries, and
     * the call itself until its reply. When it passes, the call fails with a {@link
     * CallDeadlineException} that says whether it was still waiting for a connection or in the
     * call, with the pool state; that class says how each pool ends a call in flight. {@link
     * ThriftClientPool#lease()} is not bounded. Zero: no deadline; the borrow timeout and the
     * connection's timeouts bound the parts. Default zero.
     *
     * <p>One call may carry its own deadline instead, e.g. the time left of the request that made
     * it: {@link ThriftClientPool#call(Duration, ThriftClientPool.ClientCall)}, {@link
     * ThriftAsyncClientPool#call(Duration, ThriftAsyncClientPool.AsyncCall)} and {@link
     * ThriftChannelPool#call(Duration, io.thriftnio.core.AsyncClients.Send,
     * io.thriftnio.core.AsyncClients.Receive)} apply it as above, in place of this one, whether
     * this one is set or not. {@link ThriftChannelPool#callOneway} is bounded by neither.
     *
     * @param callDeadline {@code >= 0}
     * @return this builder
     */
    public Builder callDeadline(Duration callDeadline) {
      this.callDeadline = callDeadline;
      return this;
    }

    /**
     * The upkeep of idle connections: how long one may sit idle, how often the evictor runs, how
     * many it keeps open per endpoint, and whether one is validated before it is lent. Default
     * {@link IdleConnectionsConfig#defaults()}: closed after 10 min idle, evictor every 30 s, none
     * kept open, validated on borrow.
     *
     * @param idleConnections not null
     * @return this builder
     */
    public Builder idleConnections(IdleConnectionsConfig idleConnections) {
      this.idleConnections = idleConnections;
      return this;
    }

    /**
     * How many calls may be retried on another endpoint, and over what window. Default {@link
     * RetryBudgetConfig#defaults()}: 0.1 retries per call plus 10 per second, over 10 s.
     *
     * @param retryBudget not null
     * @return this builder
     */
    public Builder retryBudget(RetryBudgetConfig retryBudget) {
      this.retryBudget = retryBudget;
      return this;
    }

    /**
     * When an endpoint is taken out after connect failures or call failures in a row, and for how
     * long. Default {@link EndpointHealthConfig#defaults()}: back-off from 1 s, up to 2 s (30 s for
     * an ejected endpoint), ejection after 5 failures in a row.
     *
     * @param endpointHealth not null
     * @return this builder
     */
    public Builder endpointHealth(EndpointHealthConfig endpointHealth) {
      this.endpointHealth = endpointHealth;
      return this;
    }

    /** See {@link PoolBuilder#adaptiveLimit(int)}. */
    public Builder adaptiveLimit(int maxCallsInFlight) {
      this.adaptiveLimit = maxCallsInFlight;
      return this;
    }

    /**
     * Checks every value and builds the configuration.
     *
     * @return the configuration
     * @throws IllegalArgumentException naming the first value out of range
     */
    public PoolConfig build() {
      Checks.notNull("idleConnections", idleConnections);
      Checks.positive("maxTotal", maxTotal);
      Checks.positive("maxPerEndpoint", maxPerEndpoint);
      Checks.nonNegative("maxIdlePerEndpoint", maxIdlePerEndpoint);
      atMost("maxIdlePerEndpoint", maxIdlePerEndpoint, "maxPerEndpoint", maxPerEndpoint);
      atMost(
          "minIdlePerEndpoint",
          idleConnections.minPerEndpoint(),
          "maxIdlePerEndpoint",
          maxIdlePerEndpoint);
      Checks.nonNegative("borrowTimeout", borrowTimeout);
      Checks.positive("borrowQueueCapacity", borrowQueueCapacity);
      Checks.notNull("balancer", balancer);
      if (jmxName != null && jmxName.isBlank()) {
        throw new SettingException("jmxName", "''", "null or a non-blank name");
      }
      Checks.nonNegative("callDeadline", callDeadline);
      Checks.notNull("retryBudget", retryBudget);
      Checks.notNull("endpointHealth", endpointHealth);
      if (adaptiveLimit != 0) {
        checkAdaptiveLimit(adaptiveLimit);
      }
      return new PoolConfig(this);
    }

    /** The library behind {@code adaptiveLimit}, an optional dependency. */
    private static final String ADAPTIVE_LIMIT_CLASS =
        "com.netflix.concurrency.limits.limit.Gradient2Limit";

    private static void checkAdaptiveLimit(int max) {
      Checks.positive("adaptiveLimit", max);
      try {
        Class.forName(ADAPTIVE_LIMIT_CLASS, false, PoolConfig.class.getClassLoader());
      } catch (ClassNotFoundException | LinkageError e) {
        throw new IllegalStateException(
            "adaptiveLimit: "
                + max
                + " needs com.netflix.concurrency-limits:concurrency-limits-core (0.5.4) on the"
                + " class path, an optional dependency of thrift-nio-core ("
                + ADAPTIVE_LIMIT_CLASS
                + " not found)",
            e);
      }
    }

    private static void atMost(String name, int value, String limitName, int limit) {
      if (value > limit) {
        throw new SettingException(name, value, "<= " + limitName + ": " + limit);
      }
    }
  }
}
