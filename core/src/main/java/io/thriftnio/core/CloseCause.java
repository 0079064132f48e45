package io.thriftnio.core;

/**
 * Why a server connection ended, as a {@link ConnectionListener} is told. The first reason the
 * server decided on wins: a connection closed for being idle is {@link #IDLE} even if the peer's
 * FIN crosses the server's.
 */
public enum CloseCause {
  /**
   * The peer closed the connection, or reset it, or it failed with an IO error (a broken pipe,
   * say): it ended without the server deciding anything. A reset is not told apart from a close:
   * Grizzly reports both as an end of stream.
   */
  PEER_CLOSED,
  /** No request for {@code idleTimeout} while no call was in flight. */
  IDLE,
  /**
   * Older than {@code maxConnectionAge} (with its jitter): closed once quiet for a second (no call
   * in flight, nothing received or answered), or after the HTTP reply that said {@code Connection:
   * close}; or still in use at age plus {@code maxConnectionAgeGrace}, and closed with its calls in
   * flight.
   */
  AGED,
  /**
   * A request did not arrive completely within {@code frameTimeout}, or the peer did not read its
   * responses (above {@code maxPendingWriteBytes}) for {@code frameTimeout}.
   */
  FRAME_TIMEOUT,
  /**
   * The peer sent something the server cannot serve: a frame length {@code <= 0} or above {@code
   * maxFrameSize}, or a message whose header cannot be read. The server answered what it could,
   * then closed.
   */
  BAD_REQUEST,
  /** The TLS handshake failed or did not complete within {@code handshakeTimeout}. */
  TLS_FAILURE,
  /**
   * The SASL negotiation ({@code WireKind.SASL}) failed: a wrong credential, a mechanism the server
   * does not offer, a mechanism's error, a negotiation message above {@code
   * maxNegotiationMessageSize}, or no completion within {@code negotiationTimeout}. The peer was
   * sent {@code BAD} or {@code ERROR} with the reason.
   */
  SASL_FAILURE,
  /** Refused at accept: {@code maxConnections} connections were open. */
  LIMIT,
  /**
   * The server's {@code close()} ended it: refused at accept while closing, or drained (its
   * received calls answered) and closed, or still open when {@code drainTimeout} passed. Also a
   * connection accepted during the drain of a server with a {@code healthPath}, served for the
   * probe alone: closed after its {@code 503}, at once if it sent anything else, or at the drain's
   * end.
   */
  SERVER_CLOSING,
  /** An unexpected failure on the server's side of the connection (not an IO error). */
  ERROR
}
