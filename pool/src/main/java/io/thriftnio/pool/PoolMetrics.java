package io.thriftnio.pool;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * Receives pool events, for a metrics library. Every method has a no-op default, so an
 * implementation overrides only what it records. Methods are called on the thread that caused the
 * event and must return quickly and never throw.
 */
public interface PoolMetrics {

  /** Records nothing; the default of every pool. */
  PoolMetrics NONE = new PoolMetrics() {};

  /**
   * A connection was lent.
   *
   * @param endpoint where it goes
   * @param wait how long the borrower waited for it, connect time included
   */
  default void borrowed(InetSocketAddress endpoint, Duration wait) {}

  /**
   * A borrow gave up after the borrow timeout.
   *
   * @param endpoint the endpoint it waited for
   * @param wait how long it waited
   */
  default void borrowTimedOut(InetSocketAddress endpoint, Duration wait) {}

  /**
   * A connection was opened.
   *
   * @param endpoint where it goes
   */
  default void created(InetSocketAddress endpoint) {}

  /**
   * A connection could not be opened; the endpoint is marked down.
   *
   * @param endpoint where it should have gone
   * @param cause why
   */
  default void connectFailed(InetSocketAddress endpoint, Throwable cause) {}

  /**
   * A connection was closed, for whatever reason (error, eviction, limits, pool closed).
   *
   * @param endpoint where it went
   */
  default void destroyed(InetSocketAddress endpoint) {}

  /**
   * A connection was condemned because a call on it failed in a way that may leave its stream
   * unusable (transport, protocol or timeout error, unexpected exception) or because it failed
   * validation. {@link #destroyed} follows.
   *
   * @param endpoint where it went
   * @param cause the failure, or {@code null} when validation failed
   */
  default void invalidated(InetSocketAddress endpoint, Throwable cause) {}
}
