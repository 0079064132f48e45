package io.thriftnio.pool;

import org.apache.thrift.TException;

/**
 * A pool could not lend a connection: closed, interrupted while waiting, or no endpoint available.
 * A {@code TException}, so code that already handles Thrift failures handles these too. No request
 * was sent when this is thrown.
 *
 * <p>A pool that cannot serve a call, because every endpoint is down or its connect failed, throws
 * this exception from the first such call on, on all three pools: {@code no endpoint available:
 * 10.0.0.7:9090 down for 995ms more after 1 connect failure(s) (last: cannot connect to
 * host/10.0.0.7:9090: Connection refused)}, naming each endpoint that is down and caused by the
 * last endpoint failure (a {@code TTransportException} of type {@code NOT_OPEN} for a refused
 * connect). The call that tried the connect and the calls during the back-off that follows fail
 * alike; neither sent a request.
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
