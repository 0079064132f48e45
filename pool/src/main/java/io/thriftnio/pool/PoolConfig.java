package io.thriftnio.pool;

import io.thriftnio.core.util.internal.Checks;
import java.time.Duration;

/**
 * Limits and health settings shared by every pool in this package. Immutable; build one with {@link
 * #builder()}, or take {@link #defaults()}.
 *
 * <pre>{@code
 * PoolConfig config = PoolConfig.builder()
 *     .maxPerEndpoint(64)
 *     .borrowTimeout(Duration.ofSeconds(2))
 *     .build();
 * }</pre>
 */
public final class PoolConfig {

  /** Default {@link Builder#maxTotal(int)}: {@value}. */
  public static final int DEFAULT_MAX_TOTAL = 64;

  /** Default {@link Builder#maxPerEndpoint(int)}: {@value}. */
  public static final int DEFAULT_MAX_PER_ENDPOINT = 8;

  /** Default {@link Builder#maxIdlePerEndpoint(int)}: {@value}. */
  public static final int DEFAULT_MAX_IDLE_PER_ENDPOINT = 8;

  /** Default {@link Builder#minIdlePerEndpoint(int)}: {@value}. */
  public static final int DEFAULT_MIN_IDLE_PER_ENDPOINT = 0;

  /**
   * Default {@link Builder#maxWaiting(int)}: {@value}. A waiting call holds its request and a few
   * hundred bytes; ten thousand is room for a burst of ten thousand concurrent callers (the bench
   * drives a thousand) while a caller that outruns the servers for good fails fast instead of
   * growing the heap until every waiter times out.
   */
  public static final int DEFAULT_MAX_WAITING = 10_000;

  /** Default {@link Builder#borrowTimeout(Duration)}: 5 seconds. */
  public static final Duration DEFAULT_BORROW_TIMEOUT = Duration.ofSeconds(5);

  /** Default {@link Builder#idleTimeout(Duration)}: 10 minutes. */
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(10);

  /** Default {@link Builder#evictionInterval(Duration)}: 30 seconds. */
  public static final Duration DEFAULT_EVICTION_INTERVAL = Duration.ofSeconds(30);

  /** Default {@link Builder#endpointBackoff(Duration)}: 1 second. */
  public static final Duration DEFAULT_ENDPOINT_BACKOFF = Duration.ofSeconds(1);

  /**
   * Default {@link Builder#maxEndpointBackoff(Duration)}: 2 seconds. With one endpoint, a pool
   * refuses calls while it is down, so this ceiling is also how long callers may be refused after
   * the server accepts again. It costs one connect per pool every 1.6 to 2 s against an endpoint
   * that stays down.
   */
  public static final Duration DEFAULT_MAX_ENDPOINT_BACKOFF = Duration.ofSeconds(2);

  /**
   * Default {@link Builder#maxEjectionBackoff(Duration)}: 30 seconds. An ejected endpoint accepts
   * connections but fails calls, so each return costs calls: it is kept out longer than a dead one.
   */
  public static final Duration DEFAULT_MAX_EJECTION_BACKOFF = Duration.ofSeconds(30);

  /**
   * Default {@link Builder#retryBudgetRatio(double)}: {@value}, one retry for every ten calls, as
   * in Finagle's and Envoy's budgets: a fleet with one endpoint of three down sees at most 10% more
   * attempts, never the doubling or tripling of per-call retry counts.
   */
  public static final double DEFAULT_RETRY_BUDGET_RATIO = 0.1;

  /**
   * Default {@link Builder#minRetriesPerSecond(int)}: {@value}, so a pool that makes few calls can
   * still retry the odd refused connect.
   */
  public static final int DEFAULT_MIN_RETRIES_PER_SECOND = 10;

  /** Default {@link Builder#retryBudgetWindow(Duration)}: 10 seconds. */
  public static final Duration DEFAULT_RETRY_BUDGET_WINDOW = Duration.ofSeconds(10);

  /**
   * Default {@link Builder#ejectAfterConsecutiveFailures(int)}: {@value}. Low enough to stop
   * sending to a broken endpoint within a handful of calls, high enough that one dropped connection
   * or one slow reply does not take an endpoint out.
   */
  public static final int DEFAULT_EJECT_AFTER_CONSECUTIVE_FAILURES = 5;

  /** Default {@link Builder#callDeadline(Duration)}: zero, no deadline. */
  public static final Duration DEFAULT_CALL_DEADLINE = Duration.ZERO;

  private static final PoolConfig DEFAULTS = builder().build();

  private final int maxTotal;
  private final int maxPerEndpoint;
  private final int maxIdlePerEndpoint;
  private final int minIdlePerEndpoint;
  private final Duration borrowTimeout;
  private final int maxWaiting;
  private final boolean testOnBorrow;
  private final Duration idleTimeout;
  private final Duration evictionInterval;
  private final Balancer balancer;
  private final Duration endpointBackoff;
  private final Duration maxEndpointBackoff;
  private final Duration maxEjectionBackoff;
  private final String jmxName;
  private final double retryBudgetRatio;
  private final int minRetriesPerSecond;
  private final Duration retryBudgetWindow;
  private final Duration callDeadline;
  private final int ejectAfterConsecutiveFailures;

  private PoolConfig(Builder b) {
    this.maxTotal = b.maxTotal;
    this.maxPerEndpoint = b.maxPerEndpoint;
    this.maxIdlePerEndpoint = b.maxIdlePerEndpoint;
    this.minIdlePerEndpoint = b.minIdlePerEndpoint;
    this.borrowTimeout = b.borrowTimeout;
    this.maxWaiting = b.maxWaiting;
    this.testOnBorrow = b.testOnBorrow;
    this.idleTimeout = b.idleTimeout;
    this.evictionInterval = b.evictionInterval;
    this.balancer = b.balancer;
    this.endpointBackoff = b.endpointBackoff;
    this.maxEndpointBackoff = b.maxEndpointBackoff;
    this.maxEjectionBackoff = b.maxEjectionBackoff;
    this.jmxName = b.jmxName;
    this.retryBudgetRatio = b.retryBudgetRatio;
    this.minRetriesPerSecond = b.minRetriesPerSecond;
    this.retryBudgetWindow = b.retryBudgetWindow;
    this.callDeadline = b.callDeadline;
    this.ejectAfterConsecutiveFailures = b.ejectAfterConsecutiveFailures;
  }

  /** A new builder, starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** The configuration with every default. */
  public static PoolConfig defaults() {
    return DEFAULTS;
  }

  /** Connections across all endpoints, in use or idle. */
  public int maxTotal() {
    return maxTotal;
  }

  /** Connections to one endpoint, in use or idle. */
  public int maxPerEndpoint() {
    return maxPerEndpoint;
  }

  /** Idle connections kept per endpoint; more are closed when returned. */
  public int maxIdlePerEndpoint() {
    return maxIdlePerEndpoint;
  }

  /** Idle connections the evictor keeps open per endpoint. */
  public int minIdlePerEndpoint() {
    return minIdlePerEndpoint;
  }

  /** How long a borrow waits for a connection when the limits are reached; zero fails at once. */
  public Duration borrowTimeout() {
    return borrowTimeout;
  }

  /**
   * Calls of an async pool that may wait for a connection at once; see {@link
   * Builder#maxWaiting(int)}.
   */
  public int maxWaiting() {
    return maxWaiting;
  }

  /** Whether an idle connection is validated before it is lent. */
  public boolean testOnBorrow() {
    return testOnBorrow;
  }

  /** How long a connection may sit idle before the evictor closes it; zero keeps it forever. */
  public Duration idleTimeout() {
    return idleTimeout;
  }

  /** Time between evictor runs; zero turns the evictor (and min idle upkeep) off. */
  public Duration evictionInterval() {
    return evictionInterval;
  }

  /** How the endpoint of the next borrow is chosen. */
  public Balancer balancer() {
    return balancer;
  }

  /**
   * How long an endpoint that failed to connect is skipped the first time; see {@link
   * Builder#endpointBackoff(Duration)}.
   */
  public Duration endpointBackoff() {
    return endpointBackoff;
  }

  /**
   * The longest an endpoint is skipped after consecutive connect failures, and so the longest a
   * down endpoint waits for its next probe; see {@link Builder#maxEndpointBackoff(Duration)}.
   */
  public Duration maxEndpointBackoff() {
    return maxEndpointBackoff;
  }

  /**
   * The longest an endpoint is skipped after consecutive ejections; see {@link
   * Builder#maxEjectionBackoff(Duration)}.
   */
  public Duration maxEjectionBackoff() {
    return maxEjectionBackoff;
  }

  /** The JMX name prefix, or {@code null} when JMX registration is off. */
  public String jmxName() {
    return jmxName;
  }

  /** Retries allowed per call made, over {@link #retryBudgetWindow()}; see the builder. */
  public double retryBudgetRatio() {
    return retryBudgetRatio;
  }

  /** Retries allowed per second whatever the number of calls; see the builder. */
  public int minRetriesPerSecond() {
    return minRetriesPerSecond;
  }

  /** The sliding window over which calls and retries are counted for the retry budget. */
  public Duration retryBudgetWindow() {
    return retryBudgetWindow;
  }

  /**
   * The time a call may take from start to end, waiting for a connection included; zero for none.
   * See {@link Builder#callDeadline(Duration)}.
   */
  public Duration callDeadline() {
    return callDeadline;
  }

  /**
   * Consecutive call failures in transport that take an endpoint out for a back-off; zero for
   * never. See {@link Builder#ejectAfterConsecutiveFailures(int)}.
   */
  public int ejectAfterConsecutiveFailures() {
    return ejectAfterConsecutiveFailures;
  }

  @Override
  public String toString() {
    return "PoolConfig{maxTotal="
        + maxTotal
        + ", maxPerEndpoint="
        + maxPerEndpoint
        + ", maxIdlePerEndpoint="
        + maxIdlePerEndpoint
        + ", minIdlePerEndpoint="
        + minIdlePerEndpoint
        + ", borrowTimeout="
        + borrowTimeout
        + ", maxWaiting="
        + maxWaiting
        + ", testOnBorrow="
        + testOnBorrow
        + ", idleTimeout="
        + idleTimeout
        + ", evictionInterval="
        + evictionInterval
        + ", balancer="
        + balancer
        + ", endpointBackoff="
        + endpointBackoff
        + ", maxEndpointBackoff="
        + maxEndpointBackoff
        + ", maxEjectionBackoff="
        + maxEjectionBackoff
        + ", jmxName="
        + jmxName
        + ", retryBudgetRatio="
        + retryBudgetRatio
        + ", minRetriesPerSecond="
        + minRetriesPerSecond
        + ", retryBudgetWindow="
        + retryBudgetWindow
        + ", callDeadline="
        + callDeadline
        + ", ejectAfterConsecutiveFailures="
        + ejectAfterConsecutiveFailures
        + '}';
  }

  /** Builds a {@link PoolConfig}; every value is checked in {@link #build()}. */
  public static final class Builder {
    private int maxTotal = DEFAULT_MAX_TOTAL;
    private int maxPerEndpoint = DEFAULT_MAX_PER_ENDPOINT;
    private int maxIdlePerEndpoint = DEFAULT_MAX_IDLE_PER_ENDPOINT;
    private int minIdlePerEndpoint = DEFAULT_MIN_IDLE_PER_ENDPOINT;
    private Duration borrowTimeout = DEFAULT_BORROW_TIMEOUT;
    private int maxWaiting = DEFAULT_MAX_WAITING;
    private boolean testOnBorrow = true;
    private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
    private Duration evictionInterval = DEFAULT_EVICTION_INTERVAL;
    private Balancer balancer = Balancer.POWER_OF_TWO_CHOICES;
    private Duration endpointBackoff = DEFAULT_ENDPOINT_BACKOFF;
    private Duration maxEndpointBackoff = DEFAULT_MAX_ENDPOINT_BACKOFF;
    private Duration maxEjectionBackoff = DEFAULT_MAX_EJECTION_BACKOFF;
    private String jmxName;
    private double retryBudgetRatio = DEFAULT_RETRY_BUDGET_RATIO;
    private int minRetriesPerSecond = DEFAULT_MIN_RETRIES_PER_SECOND;
    private Duration retryBudgetWindow = DEFAULT_RETRY_BUDGET_WINDOW;
    private Duration callDeadline = DEFAULT_CALL_DEADLINE;
    private int ejectAfterConsecutiveFailures = DEFAULT_EJECT_AFTER_CONSECUTIVE_FAILURES;

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
     * @param maxIdlePerEndpoint {@code >= minIdlePerEndpoint}, {@code <= maxPerEndpoint}
     * @return this builder
     */
    public Builder maxIdlePerEndpoint(int maxIdlePerEndpoint) {
      this.maxIdlePerEndpoint = maxIdlePerEndpoint;
      return this;
    }

    /**
     * Idle connections the evictor opens and keeps per endpoint (needs a non-zero {@link
     * #evictionInterval(Duration)}). Default {@value #DEFAULT_MIN_IDLE_PER_ENDPOINT}.
     *
     * @param minIdlePerEndpoint {@code >= 0}
     * @return this builder
     */
    public Builder minIdlePerEndpoint(int minIdlePerEndpoint) {
      this.minIdlePerEndpoint = minIdlePerEndpoint;
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
     * Default {@value #DEFAULT_MAX_WAITING}.
     *
     * @param maxWaiting {@code > 0}
     * @return this builder
     */
    public Builder maxWaiting(int maxWaiting) {
      if (maxWaiting <= 0) {
        throw new IllegalArgumentException("maxWaiting: " + maxWaiting + " (expected: > 0)");
      }
      this.maxWaiting = maxWaiting;
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
     * How long a connection may sit idle before the evictor closes it. Zero keeps idle connections
     * forever. Default {@link #DEFAULT_IDLE_TIMEOUT} (10 min).
     *
     * @param idleTimeout {@code >= 0}
     * @return this builder
     */
    public Builder idleTimeout(Duration idleTimeout) {
      this.idleTimeout = idleTimeout;
      return this;
    }

    /**
     * Time between evictor runs, which close connections idle for longer than {@link
     * #idleTimeout(Duration)}, validate the others and top up {@link #minIdlePerEndpoint(int)}.
     * Zero turns the evictor off. Default {@link #DEFAULT_EVICTION_INTERVAL} (30 s).
     *
     * @param evictionInterval {@code >= 0}
     * @return this builder
     */
    public Builder evictionInterval(Duration evictionInterval) {
      this.evictionInterval = evictionInterval;
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
     * How long an endpoint is skipped after it failed to connect; each consecutive failure doubles
     * it, up to {@link #maxEndpointBackoff(Duration)}. When the time is up, one borrow probes the
     * endpoint by connecting to it; exactly one probe at a time goes to a down endpoint, and only a
     * probe that gets a connection brings it back. Each back-off is drawn at random from the 20%
     * below its value (1 s: between 0.8 and 1 s), so that clients that lost an endpoint together do
     * not probe it in step. Default {@link #DEFAULT_ENDPOINT_BACKOFF} (1 s).
     *
     * @param endpointBackoff {@code > 0}
     * @return this builder
     */
    public Builder endpointBackoff(Duration endpointBackoff) {
      this.endpointBackoff = endpointBackoff;
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
     * Default {@link #DEFAULT_MAX_ENDPOINT_BACKOFF} (2 s).
     *
     * @param maxEndpointBackoff {@code >= endpointBackoff}
     * @return this builder
     */
    public Builder maxEndpointBackoff(Duration maxEndpointBackoff) {
      this.maxEndpointBackoff = maxEndpointBackoff;
      return this;
    }

    /**
     * The longest an ejected endpoint is skipped ({@link #ejectAfterConsecutiveFailures(int)}): the
     * back-off doubles from {@link #endpointBackoff(Duration)} with each ejection that follows
     * without a successful call in between, up to this. An ejected endpoint accepts connections but
     * fails calls, so each return costs a probe and up to {@code ejectAfterConsecutiveFailures}
     * failing calls: it is kept out longer than a dead endpoint, whose return costs nothing.
     * Default {@link #DEFAULT_MAX_EJECTION_BACKOFF} (30 s).
     *
     * @param maxEjectionBackoff {@code >= endpointBackoff}
     * @return this builder
     */
    public Builder maxEjectionBackoff(Duration maxEjectionBackoff) {
      this.maxEjectionBackoff = maxEjectionBackoff;
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
     * The share of recent calls that may be retried: over the last {@link
     * #retryBudgetWindow(Duration)}, a pool retries at most {@code retryBudgetRatio × calls +
     * minRetriesPerSecond × window seconds} times. A retry is a second attempt of a call on another
     * endpoint: after a connect that failed (refused, timed out, unreachable), which cannot have
     * reached a handler, or, for a method declared idempotent, after a transport error. With the
     * budget spent, the call fails with the error of its last attempt, saying that the budget is
     * exhausted and the pool's state; {@link PoolStats#retries()} and {@link
     * PoolStats#retriesRefused()} count both outcomes. Zero, with {@link #minRetriesPerSecond(int)}
     * zero, turns retries off. Default {@value #DEFAULT_RETRY_BUDGET_RATIO}.
     *
     * @param retryBudgetRatio {@code >= 0} and {@code <= 1000}
     * @return this builder
     */
    public Builder retryBudgetRatio(double retryBudgetRatio) {
      this.retryBudgetRatio = retryBudgetRatio;
      return this;
    }

    /**
     * Retries per second a pool may make whatever its number of calls (the budget's floor; see
     * {@link #retryBudgetRatio(double)}). It is a reserve over the window: with the defaults, up to
     * 100 retries in 10 s on top of the share of calls. Default {@value
     * #DEFAULT_MIN_RETRIES_PER_SECOND}.
     *
     * @param minRetriesPerSecond {@code >= 0}
     * @return this builder
     */
    public Builder minRetriesPerSecond(int minRetriesPerSecond) {
      this.minRetriesPerSecond = minRetriesPerSecond;
      return this;
    }

    /**
     * The sliding window over which the retry budget counts calls and retries, kept in ten slices:
     * counts older than the window are forgotten one slice at a time. Default {@link
     * #DEFAULT_RETRY_BUDGET_WINDOW} (10 s).
     *
     * @param retryBudgetWindow {@code >= 10ms} (ten slices of at least a millisecond)
     * @return this builder
     */
    public Builder retryBudgetWindow(Duration retryBudgetWindow) {
      this.retryBudgetWindow = retryBudgetWindow;
      return this;
    }

    /**
     * The time a call may take in all: waiting for a connection (and connecting), its retries, and
     * the call itself until its reply. When it passes, the call fails with a {@link
     * CallDeadlineException} that says whether it was still waiting for a connection or in the
     * call, with the pool state. How each pool ends a call in flight:
     *
     * <ul>
     *   <li>{@link ThriftClientPool}: the connection is closed under the blocked call (a read
     *       timeout bounds each read, not a call, so it cannot stand for the deadline), and
     *       destroyed.
     *   <li>{@link ThriftAsyncClientPool}: the caller hears at the deadline; the client's own call
     *       timeout is set to the time left, so the client fails and is destroyed by then too.
     *   <li>{@link ThriftChannelPool}: the caller hears at the deadline; the call keeps its slot on
     *       the shared connection until its reply (discarded) or the channel's own timeout, since
     *       cutting it short would close the connection under the other calls it carries.
     * </ul>
     *
     * A call still waiting in an async pool's queue at its deadline gives its connection back
     * unused when it is served. {@link ThriftClientPool#lease()} is not bounded. Zero: no deadline;
     * the borrow timeout and the connection's timeouts bound the parts. Default zero.
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
     * Outlier ejection: an endpoint whose calls fail in transport this many times in a row
     * (connection closed or reset, timed out, reply out of step; not declared IDL exceptions nor
     * {@code TApplicationException}s, which are answers) is taken out as a failed connect takes it
     * out: for {@link #endpointBackoff(Duration)}, doubling with each ejection that follows without
     * a successful call in between, up to {@link #maxEjectionBackoff(Duration)}; then one borrower
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
     * Checks every value and builds the configuration.
     *
     * @return the configuration
     * @throws IllegalArgumentException naming the first value out of range
     */
    public PoolConfig build() {
      Checks.positive("maxTotal", maxTotal);
      Checks.positive("maxPerEndpoint", maxPerEndpoint);
      Checks.nonNegative("minIdlePerEndpoint", minIdlePerEndpoint);
      Checks.nonNegative("maxIdlePerEndpoint", maxIdlePerEndpoint);
      if (maxIdlePerEndpoint > maxPerEndpoint) {
        throw new IllegalArgumentException(
            "maxIdlePerEndpoint: "
                + maxIdlePerEndpoint
                + " (expected: <= maxPerEndpoint: "
                + maxPerEndpoint
                + ")");
      }
      if (minIdlePerEndpoint > maxIdlePerEndpoint) {
        throw new IllegalArgumentException(
            "minIdlePerEndpoint: "
                + minIdlePerEndpoint
                + " (expected: <= maxIdlePerEndpoint: "
                + maxIdlePerEndpoint
                + ")");
      }
      Checks.nonNegative("borrowTimeout", borrowTimeout);
      Checks.nonNegative("idleTimeout", idleTimeout);
      Checks.nonNegative("evictionInterval", evictionInterval);
      Checks.notNull("balancer", balancer);
      Checks.positive("endpointBackoff", endpointBackoff);
      Checks.positive("maxEndpointBackoff", maxEndpointBackoff);
      if (maxEndpointBackoff.compareTo(endpointBackoff) < 0) {
        throw new IllegalArgumentException(
            "maxEndpointBackoff: "
                + maxEndpointBackoff
                + " (expected: >= endpointBackoff: "
                + endpointBackoff
                + ")");
      }
      Checks.positive("maxEjectionBackoff", maxEjectionBackoff);
      if (maxEjectionBackoff.compareTo(endpointBackoff) < 0) {
        throw new IllegalArgumentException(
            "maxEjectionBackoff: "
                + maxEjectionBackoff
                + " (expected: >= endpointBackoff: "
                + endpointBackoff
                + ")");
      }
      if (jmxName != null && jmxName.isBlank()) {
        throw new IllegalArgumentException("jmxName: '' (expected: null or a non-blank name)");
      }
      if (!(retryBudgetRatio >= 0 && retryBudgetRatio <= 1000)) {
        throw new IllegalArgumentException(
            "retryBudgetRatio: " + retryBudgetRatio + " (expected: >= 0 and <= 1000)");
      }
      Checks.nonNegative("minRetriesPerSecond", minRetriesPerSecond);
      Checks.notNull("retryBudgetWindow", retryBudgetWindow);
      if (retryBudgetWindow.compareTo(Duration.ofMillis(10)) < 0) {
        throw new IllegalArgumentException(
            "retryBudgetWindow: " + retryBudgetWindow + " (expected: >= PT0.01S)");
      }
      Checks.nonNegative("callDeadline", callDeadline);
      Checks.nonNegative("ejectAfterConsecutiveFailures", ejectAfterConsecutiveFailures);
      return new PoolConfig(this);
    }
  }
}
