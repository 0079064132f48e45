package io.thriftnio.core;

/**
 * How a call ended, as {@link ServerInterceptor#afterCall} and {@link ClientInterceptor#afterCall}
 * see it. One set of names for both sides, so that one access log reads alike on either: a call an
 * interceptor stops is {@link #REFUSED}, a call whose time ran out {@link #TIMED_OUT}. Some endings
 * are seen by one side only, as each value says.
 *
 * <p>A server reads its outcome from the reply the call produced (its message type, and for a
 * {@code REPLY} whether the result struct's first field is the return value, id 0, or a declared
 * exception), only on a server with interceptors. A client reads it from the reply it received, or
 * from what ended the call without one.
 */
public enum CallOutcome {
  /**
   * Both sides: the handler returned normally; a {@code REPLY} carrying the return value (or none,
   * for a {@code void} method).
   */
  SUCCESS,
  /**
   * Both sides: the handler threw an exception declared in the IDL; a {@code REPLY} carrying it.
   */
  DECLARED_EXCEPTION,
  /**
   * Both sides: the call was answered with a {@link org.apache.thrift.TApplicationException}. On a
   * server, one other than {@code INTERNAL_ERROR} (see {@link #UNDECLARED_FAILURE}): the handler
   * threw one itself, the method is unknown, or the request was malformed. On a client, any: the
   * method is unknown to the server, the handler failed ({@code INTERNAL_ERROR}), or a server
   * interceptor refused the call; {@link ClientInterceptor#afterCall} gets that exception as its
   * failure.
   */
  APPLICATION_EXCEPTION,
  /**
   * Server only: the handler failed with an exception the IDL does not declare (or an {@link
   * Error}), or threw {@code TApplicationException(INTERNAL_ERROR)}, or an interceptor failed: the
   * caller got {@code TApplicationException(INTERNAL_ERROR)}.
   */
  UNDECLARED_FAILURE,
  /**
   * Both sides: an interceptor refused the call. On a server, with a {@link
   * org.apache.thrift.TApplicationException}; on a client, a {@link ClientInterceptor#beforeCall}
   * threw: nothing was sent, and the caller got the interceptor's exception.
   */
  REFUSED,
  /**
   * Both sides: a oneway call. On a server, it ran: nothing is sent back, and libthrift's
   * processors do not report whether its handler failed. On a client, the message was written; no
   * reply is awaited.
   */
  ONEWAY,
  /**
   * Both sides: the call's time ran out. On a server, it was not answered within {@link
   * ServerBuilder#handlerTimeout}: the server answered it with {@code
   * TApplicationException(INTERNAL_ERROR)} (nothing for a oneway call) and discards the handler's
   * result if it ever comes; {@code afterCall} then runs on the server's timer thread, while the
   * handler may still be running, unless the call had not yet passed every {@code beforeCall}: then
   * it runs on the call's thread, and the handler does not run. On a client, no reply arrived
   * within the call's timeout (its {@code callTimeout}, or a pool's deadline).
   */
  TIMED_OUT,
  /**
   * Server only: the caller's deadline (the {@value ServerCallContext#CLIENT_TIMEOUT_HEADER} header
   * it sent, counted from when the request arrived) had passed when the handler would have started,
   * after every {@code beforeCall}: the handler did not run, and the caller got {@code
   * TApplicationException(INTERNAL_ERROR)} naming the method, how late, and the header (nothing for
   * a oneway call). Counted in {@link ServerStats#timedOutCalls()}.
   */
  DEADLINE_EXCEEDED,
  /**
   * Client only: the call failed without a reply of its own: the connection could not be written
   * to, closed, or carried a reply that does not answer this call.
   */
  TRANSPORT_FAILURE
}
