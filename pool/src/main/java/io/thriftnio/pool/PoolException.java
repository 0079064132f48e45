package io.thriftnio.pool;

import org.apache.thrift.TException;

/**
 * A pool could not lend a connection: closed, interrupted while waiting, or no endpoint available.
 * A {@code TException}, so code that already handles Thrift failures handles these too. No request
 * was sent when this is thrown.
 *
 * <p>Against a dead endpoint the first call and the next ones fail differently, on purpose: the
 * first call's connect was tried and failed, and it throws that failure as the transport raised it
 * (a {@code TTransportException}: {@code cannot connect to host/10.0.0.7:9090: Connection
 * refused}); the endpoint is then down for a back-off, during which the pool tries no connect and
 * throws this exception, which says so with the numbers ({@code no endpoint available:
 * 10.0.0.7:9090 down for 995ms more after 1 connect failure(s) (last: ...)}) and is caused by that
 * last connect failure. Neither sent a request.
 */
public class PoolException extends TException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what happened, with the pool state
   * @param cause the underlying failure, or {@code null}
   */
  public PoolException(String message, Throwable cause) {
    super(message, cause);
  }
}
