package io.thriftnio.pool;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * One call's deadline ({@link io.thriftnio.pool.PoolConfig#callDeadline()} or the call's own), the
 * same for the three pools: whether it has passed, how long the next attempt may take, and the
 * exception the caller hears when it passed. It bounds the wait for a connection, every attempt and
 * a retry together, so it is taken once, when the call begins.
 */
final class Deadline {
  private final long nanos; // the deadline's length, as given
  private final long at; // System.nanoTime() the call must end by

  private Deadline(long nanos) {
    this.nanos = nanos;
    this.at = System.nanoTime() + nanos;
  }

  /** A deadline {@code nanos} from now, or {@code null} for 0: no deadline. */
  public static Deadline in(long nanos) {
    return nanos == 0 ? null : new Deadline(nanos);
  }

  /** Whether it has passed, whoever looks. */
  public boolean passed() {
    return System.nanoTime() - at >= 0;
  }

  /** Nanoseconds left; zero or less once it has passed. */
  public long left() {
    return at - System.nanoTime();
  }

  /**
   * How long the next attempt may take, in nanoseconds: its own timeout ({@code ownNanos}, 0 for
   * none) when that ends first, else the time left (at least 1) plus {@code slackNanos}. The slack
   * lets a pool whose own timer knows where the call was speak before the attempt's timeout does.
   */
  public long attemptNanos(long ownNanos, long slackNanos) {
    long bound = Math.max(1, left()) + slackNanos;
    return ownNanos > 0 && ownNanos < bound ? ownNanos : bound;
  }

  /**
   * The failure the caller hears once it passed: {@code endpoint} {@code null} while the call
   * waited for a connection, else where the call was sent.
   */
  public CallDeadlineException exceeded(
      String pool, InetSocketAddress endpoint, PoolStats stats, Throwable cause) {
    return new CallDeadlineException(
        pool, endpoint != null, Duration.ofNanos(nanos), endpoint, stats, cause);
  }
}
