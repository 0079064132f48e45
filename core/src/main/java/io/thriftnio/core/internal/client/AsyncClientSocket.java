package io.thriftnio.core.internal.client;

/**
 * The socket of a pooled stock {@code AsyncClient}, which a fresh client may take over after a call
 * whose whole reply the stock client reported as an error (a declared exception, an application
 * exception). The stock client closes its socket after any error; the socket holds that close off
 * while no reply is partly read, and closes for good only on {@link #closeNow()}. Not part of the
 * API.
 */
public interface AsyncClientSocket {

  /** Whether the last reply was read whole and nothing else arrived: the stream is in step. */
  boolean betweenReplies();

  /** The method of the request last sent, or {@code null} if unknown. */
  String lastMethod();

  /** Closes the socket, whatever the client's close was held off for. */
  void closeNow();
}
