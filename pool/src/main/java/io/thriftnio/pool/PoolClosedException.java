package io.thriftnio.pool;

/** The pool was closed before, or while, the caller waited for a connection. */
public final class PoolClosedException extends PoolException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message which pool, and the state it was in
   */
  public PoolClosedException(String message) {
    super(message, null);
  }
}
