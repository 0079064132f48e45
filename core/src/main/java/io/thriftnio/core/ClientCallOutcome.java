package io.thriftnio.core;

/**
 * How a client call ended, as {@link ClientInterceptor#afterCall} sees it.
 *
 * <p>The names follow the server's {@link CallOutcome} where the meaning is the same, so that one
 * access log reads alike on both sides: a call an interceptor stops is {@link #REFUSED} on either.
 * A client also sees failures a server never does: the connection failing ({@link
 * #TRANSPORT_FAILURE}) and the reply not coming in time ({@link #TIMEOUT}).
 */
public enum ClientCallOutcome {
  /** A reply arrived carrying the return value (or none, for a {@code void} method). */
  SUCCESS,
  /** A reply arrived carrying an exception the IDL declares. */
  DECLARED_EXCEPTION,
  /**
   * A reply arrived carrying a {@link org.apache.thrift.TApplicationException}: the method is
   * unknown to the server, the handler failed ({@code INTERNAL_ERROR}), or a server interceptor
   * refused the call. {@link ClientInterceptor#afterCall} gets that exception as its failure.
   */
  APPLICATION_EXCEPTION,
  /**
   * The call failed without a reply of its own: the connection could not be written to, closed, or
   * carried a reply that does not answer this call.
   */
  TRANSPORT_FAILURE,
  /** No reply arrived within the call's timeout. */
  TIMEOUT,
  /**
   * A {@link ClientInterceptor#beforeCall} threw: nothing was sent, and the caller got the
   * interceptor's exception.
   */
  REFUSED,
  /** A oneway message was written; no reply is awaited. */
  ONEWAY
}
