package io.thriftnio.core;

/**
 * How a served call ended, as {@link ServerInterceptor#afterCall} sees it. Read from the reply the
 * call produced (its message type, and for a {@code REPLY} whether the result struct's first field
 * is the return value, id 0, or a declared exception), only on a server with interceptors.
 */
public enum CallOutcome {
  /** The handler returned normally: a {@code REPLY} carrying the return value (or none). */
  SUCCESS,
  /** The handler threw an exception declared in the IDL: a {@code REPLY} carrying it. */
  DECLARED_EXCEPTION,
  /**
   * The call was answered with a {@link org.apache.thrift.TApplicationException} other than {@code
   * INTERNAL_ERROR}: the handler threw one itself, the method is unknown, or the request was
   * malformed.
   */
  APPLICATION_EXCEPTION,
  /**
   * The handler failed with an exception the IDL does not declare (or an {@link Error}), or threw
   * {@code TApplicationException(INTERNAL_ERROR)}, or an interceptor failed: the caller got {@code
   * TApplicationException(INTERNAL_ERROR)}.
   */
  UNDECLARED_FAILURE,
  /** An interceptor refused the call with a {@link org.apache.thrift.TApplicationException}. */
  REFUSED,
  /**
   * A oneway call ran. Nothing is sent back, and libthrift's processors do not report whether its
   * handler failed.
   */
  ONEWAY,
  /**
   * The call was not answered within {@link ServerBuilder#handlerTimeout}: the server answered it
   * with {@code TApplicationException(INTERNAL_ERROR)} (nothing for a oneway call) and discards the
   * handler's result if it ever comes. {@code afterCall} then runs on the server's timer thread,
   * while the handler may still be running, unless the call had not yet passed every {@code
   * beforeCall}: then it runs on the call's thread, and the handler does not run.
   */
  TIMED_OUT,
  /**
   * The caller's deadline (the {@value ServerCallContext#CLIENT_TIMEOUT_HEADER} header it sent,
   * counted from when the request arrived) had passed when the handler would have started, after
   * every {@code beforeCall}: the handler did not run, and the caller got {@code
   * TApplicationException(INTERNAL_ERROR)} naming the method, how late, and the header (nothing for
   * a oneway call). Counted in {@link ServerStats#timedOutCalls()}.
   */
  DEADLINE_EXCEEDED
}
