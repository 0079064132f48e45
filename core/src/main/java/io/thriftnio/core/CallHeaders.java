package io.thriftnio.core;

import io.thriftnio.core.util.internal.ClientTimeouts;

/**
 * Names of the headers this library itself sends and reads (THeader info headers, HTTP header
 * fields).
 */
public final class CallHeaders {

  /**
   * The time the caller waits for the reply, in whole milliseconds, as a decimal string: sent with
   * every request on connections that carry headers, read by servers into {@link
   * ServerCallContext#deadline()}. The name and unit fbthrift's header clients use.
   */
  public static final String CLIENT_TIMEOUT = ClientTimeouts.HEADER;

  private CallHeaders() {}
}
