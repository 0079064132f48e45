package io.thriftnio.core.sasl;

import java.net.SocketAddress;
import org.apache.thrift.transport.TTransportException;

/**
 * A SASL negotiation that did not complete, on the client: the server refused it (a {@code BAD} or
 * {@code ERROR} message, whose text is {@link #reason()}), the mechanism failed locally, the
 * negotiation timed out, or the peer does not speak SASL. Carries the mechanism, the peer and the
 * reason; the message names all three.
 */
public final class SaslNegotiationException extends TTransportException {
  private static final long serialVersionUID = 1L;

  private final String mechanism;
  private final transient SocketAddress peer;
  private final String reason;

  /**
   * @param mechanism the mechanism the client asked for
   * @param peer the server; {@code null} if unknown
   * @param reason why, in words: the server's own text for a {@code BAD} or {@code ERROR} message
   * @param cause the local failure, or {@code null}
   */
  public SaslNegotiationException(
      String mechanism, SocketAddress peer, String reason, Throwable cause) {
    super(
        TTransportException.UNKNOWN,
        "SASL " + mechanism + " negotiation with " + peer + " failed: " + reason,
        cause);
    this.mechanism = mechanism;
    this.peer = peer;
    this.reason = reason;
  }

  /** The mechanism the client asked for, for example {@code GSSAPI}. */
  public String mechanism() {
    return mechanism;
  }

  /** The server's address; {@code null} if unknown. */
  public SocketAddress peer() {
    return peer;
  }

  /** Why: the server's own text when it refused, else the local cause in words. */
  public String reason() {
    return reason;
  }
}
