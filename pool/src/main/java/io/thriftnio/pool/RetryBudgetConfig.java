package io.thriftnio.pool;

import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.util.internal.Checks;
import java.time.Duration;
import java.util.Objects;

/**
 * How many calls a pool may retry on another endpoint: over the last {@link #window()}, at most
 * {@code ratio × calls + minRetriesPerSecond × window seconds} retries. A retry is a second attempt
 * of a call on another endpoint: after a connect that failed (refused, timed out, unreachable),
 * which cannot have reached a handler, or, for a method declared idempotent, after a transport
 * error. With the budget spent, the call fails with the error of its last attempt, saying that the
 * budget is exhausted and the pool's state; {@link PoolStats#retries()} and {@link
 * PoolStats#retriesRefused()} count both outcomes.
 *
 * <p>Immutable; build one with {@link #builder()}, or take {@link #defaults()}, and hand it to
 * {@link PoolConfig.Builder#retryBudget(RetryBudgetConfig)}:
 *
 * <pre>{@code
 * PoolConfig config = PoolConfig.builder()
 *     .retryBudget(RetryBudgetConfig.builder().ratio(0.2).build())
 *     .build();
 * }</pre>
 */
final class RetryBudgetConfig {

  /**
   * Default {@link Builder#ratio(double)}: {@value}, one retry for every ten calls, as in Finagle's
   * and Envoy's budgets: a fleet with one endpoint of three down sees at most 10% more attempts,
   * never the doubling or tripling of per-call retry counts.
   */
  public static final double DEFAULT_RATIO = 0.1;

  /**
   * Default {@link Builder#minRetriesPerSecond(int)}: {@value}, so a pool that makes few calls can
   * still retry the odd refused connect.
   */
  public static final int DEFAULT_MIN_RETRIES_PER_SECOND = 10;

  /** Default {@link Builder#window(Duration)}: 10 seconds. */
  public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(10);

  /** The shortest {@link Builder#window(Duration)}: ten slices of a millisecond. */
  private static final Duration MIN_WINDOW = Duration.ofMillis(10);

  private static final RetryBudgetConfig DEFAULTS = builder().build();

  private final double ratio;
  private final int minRetriesPerSecond;
  private final Duration window;

  private RetryBudgetConfig(Builder b) {
    this.ratio = b.ratio;
    this.minRetriesPerSecond = b.minRetriesPerSecond;
    this.window = b.window;
  }

  /** A new builder, starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** The budget with every default: 0.1 of calls plus 10 retries per second, over 10 s. */
  public static RetryBudgetConfig defaults() {
    return DEFAULTS;
  }

  /**
   * Retries allowed per call made, over {@link #window()}; default {@value #DEFAULT_RATIO}. See
   * {@link Builder#ratio(double)}.
   */
  public double ratio() {
    return ratio;
  }

  /**
   * Retries allowed per second whatever the number of calls; default {@value
   * #DEFAULT_MIN_RETRIES_PER_SECOND}. See {@link Builder#minRetriesPerSecond(int)}.
   */
  public int minRetriesPerSecond() {
    return minRetriesPerSecond;
  }

  /** The sliding window over which calls and retries are counted; default 10 s. */
  public Duration window() {
    return window;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RetryBudgetConfig other
        && Double.compare(ratio, other.ratio) == 0
        && minRetriesPerSecond == other.minRetriesPerSecond
        && window.equals(other.window);
  }

  @Override
  public int hashCode() {
    return Objects.hash(ratio, minRetriesPerSecond, window);
  }

  @Override
  public String toString() {
    return "RetryBudgetConfig{ratio="
        + ratio
        + ", minRetriesPerSecond="
        + minRetriesPerSecond
        + ", window="
        + window
        + '}';
  }

  /** Builds a {@link RetryBudgetConfig}; every value is checked in {@link #build()}. */
  public static final class Builder {
    private double ratio = DEFAULT_RATIO;
    private int minRetriesPerSecond = DEFAULT_MIN_RETRIES_PER_SECOND;
    private Duration window = DEFAULT_WINDOW;

    private Builder() {}

    /**
     * The share of recent calls that may be retried: over the last {@link #window(Duration)}, a
     * pool retries at most {@code ratio × calls + minRetriesPerSecond × window seconds} times.
     * Zero, with {@link #minRetriesPerSecond(int)} zero, turns retries off. Default {@value
     * #DEFAULT_RATIO}.
     *
     * @param ratio retries per call, {@code >= 0} and {@code <= 1000}
     * @return this builder
     */
    public Builder ratio(double ratio) {
      this.ratio = ratio;
      return this;
    }

    /**
     * Retries per second a pool may make whatever its number of calls (the budget's floor; see
     * {@link #ratio(double)}). It is a reserve over the window: with the defaults, up to 100
     * retries in 10 s on top of the share of calls. Default {@value
     * #DEFAULT_MIN_RETRIES_PER_SECOND}.
     *
     * @param minRetriesPerSecond retries per second, {@code >= 0}
     * @return this builder
     */
    public Builder minRetriesPerSecond(int minRetriesPerSecond) {
      this.minRetriesPerSecond = minRetriesPerSecond;
      return this;
    }

    /**
     * The sliding window over which the budget counts calls and retries, kept in ten slices: counts
     * older than the window are forgotten one slice at a time. Default {@link #DEFAULT_WINDOW} (10
     * s).
     *
     * @param window {@code >= 10ms} (ten slices of at least a millisecond)
     * @return this builder
     */
    public Builder window(Duration window) {
      this.window = window;
      return this;
    }

    /**
     * Checks every value and builds the budget.
     *
     * @return the budget
     * @throws IllegalArgumentException naming the first value out of range
     */
    public RetryBudgetConfig build() {
      if (!(ratio >= 0 && ratio <= 1000)) {
        throw new SettingException("retryBudgetRatio", ratio, ">= 0 and <= 1000");
      }
      Checks.nonNegative("retryBudgetMinPerSecond", minRetriesPerSecond);
      Checks.notNull("retryBudgetWindow", window);
      if (window.compareTo(MIN_WINDOW) < 0) {
        throw new SettingException("retryBudgetWindow", window, ">= " + MIN_WINDOW);
      }
      return new RetryBudgetConfig(this);
    }
  }
}
