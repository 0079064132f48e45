package io.thriftnio.pool;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * No connection became available within the borrow timeout. The message names the endpoint and the
 * pool state: {@code Connection to 10.0.0.7:9090 not available, request timed out after 5000ms
 * (total=64, active=64, idle=0, waiting=312)}.
 */
public final class PoolTimeoutException extends PoolException {
  private static final long serialVersionUID = 1L;

  private final transient InetSocketAddress endpoint;
  private final transient PoolStats stats;

  /**
   * Creates the exception.
   *
   * @param endpoint the endpoint waited for, or {@code null} when any could have served
   * @param waited how long the borrower waited
   * @param stats the pool state when it gave up
   */
  public PoolTimeoutException(InetSocketAddress endpoint, Duration waited, PoolStats stats) {
    this(endpoint, waited, stats, null);
  }

  /**
   * Creates the exception for a borrower that waited while an endpoint was down: the message ends
   * {@code ; an endpoint is down, last failure: cannot connect to ...: Connection refused}, and
   * that failure is the cause.
   *
   * @param endpoint the endpoint waited for, or {@code null} when any could have served
   * @param waited how long the borrower waited
   * @param stats the pool state when it gave up
   * @param lastEndpointFailure the last failure of an endpoint that is down, or {@code null}
   */
  public PoolTimeoutException(
      InetSocketAddress endpoint, Duration waited, PoolStats stats, Throwable lastEndpointFailure) {
    super(
        "Connection to "
            + Names.endpoint(endpoint)
            + " not available, request timed out after "
            + waited.toMillis()
            + "ms ("
            + stats.gauges()
            + ")"
            + (lastEndpointFailure == null
                ? ""
                : "; an endpoint is down, last failure: " + lastEndpointFailure.getMessage()),
        lastEndpointFailure);
    this.endpoint = endpoint;
    this.stats = stats;
  }

  /**
   * The endpoint the borrower waited for; {@code null} for a call of an async pool with several
   * endpoints that waited in the pool's queue, where any endpoint could have served it.
   */
  public InetSocketAddress endpoint() {
    return endpoint;
  }

  /** The pool state when the borrower gave up. */
  public PoolStats stats() {
    return stats;
  }
}
