package io.thriftnio.core.internal.client;

import java.util.Map;

/**
 * What a pool tells a sync transport about the next call and learns from its reply, on wires that
 * carry headers (THeader, HTTP): the interceptors' request headers, the call's deadline (sent as
 * {@code client_timeout}), and the reply's headers. Every sync transport of this library implements
 * it; on framed and unframed wires the headers go nowhere. Not part of the API.
 */
public interface HeaderTransport {

  /** Headers the next request sends besides a {@code HeaderScope}'s (theirs win); used once. */
  void nextRequestHeaders(Map<String, String> headers);

  /**
   * The {@link System#nanoTime()} by which the caller stops waiting for the next reply, when that
   * comes before the transport's read timeout; used once.
   */
  void nextDeadline(long deadlineNanos);

  /** The headers of the last reply; empty before one, or on a wire without headers. */
  Map<String, String> lastReplyHeaders();
}
