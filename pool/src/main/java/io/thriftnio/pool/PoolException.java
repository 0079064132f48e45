package io.thriftnio.pool;

import org.apache.thrift.TException;

/**
 * A pool could not lend a connection: closed, interrupted while waiting, or no endpoint available.
 * A {@code TException}, so code that already handles Thrift failures handles these too. No request
 * was sent when this is thrown.
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
