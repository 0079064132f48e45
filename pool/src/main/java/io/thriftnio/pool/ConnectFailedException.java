package io.thriftnio.pool;

/**
 * A connect to an endpoint failed before anything was written: the borrow may move to another
 * endpoint. Carries the connect's own failure as its cause.
 */
final class ConnectFailedException extends Exception {
  private static final long serialVersionUID = 1L;

  ConnectFailedException(Throwable cause) {
    super(cause);
  }
}
