package io.thriftnio.core.internal.server;

/**
 * What the {@link ConnectionRegistry} and the {@link ServerLifecycle} ask of one accepted
 * connection: the IO adapter's verbs around its calls. Methods may be called on any thread. Not
 * part of the API.
 *
 * <p>It knows nothing of framing: an adapter that sniffs a connection's first bytes before choosing
 * its codec registers the connection at accept all the same.
 */
public interface ConnectionHandle {

  /**
   * The server is closing: answer the requests already received, refuse those that arrive as not
   * run, and close once quiet ({@link CallSequencer#startDrain}); at once if quiet already.
   * Idempotent.
   */
  void startDrain();

  /** Calls received and not yet answered; 0 before the connection has a call path. */
  int pendingCalls();

  /**
   * Closes the connection now, without waiting for its queued writes (a peer that stopped reading
   * never takes them).
   */
  void closeNow();

  /**
   * Closes the connection once the writes queued on it have been sent (an idle connection's last
   * replies); by default {@link #closeNow()}, for an adapter whose close sends them anyway.
   */
  default void closeAfterWrites() {
    closeNow();
  }
}
