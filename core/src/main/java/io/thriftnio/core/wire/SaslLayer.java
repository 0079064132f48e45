package io.thriftnio.core.wire;

import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;

/**
 * The security layer of one SASL client connection: nothing until the negotiation completes, then
 * the mechanism's {@code wrap} and {@code unwrap} when the negotiated quality of protection is
 * {@code auth-int} or {@code auth-conf}. Both go through one lock: a mechanism's sequence numbers
 * and cipher state are not documented as safe for a wrap and an unwrap at once ({@link SaslClient}
 * promises no thread safety).
 */
public final class SaslLayer {

  // Both set once, by the negotiating thread, before any frame is sent or received.
  private volatile SaslClient client; // null: frames are not wrapped
  private volatile boolean complete;

  /** Held around the mechanism's wrap and unwrap. */
  private final Object mechanism = new Object();

  /** A layer that wraps nothing until {@link #negotiated} says otherwise. */
  public SaslLayer() {}

  /**
   * The negotiation completed with {@code client}: frames are wrapped from now on if its negotiated
   * quality of protection says so.
   */
  public void negotiated(SaslClient client) {
    Object qop = client.getNegotiatedProperty(Sasl.QOP);
    if (qop != null && !"auth".equalsIgnoreCase(qop.toString())) {
      this.client = client;
    }
    complete = true;
  }

  /** Whether the negotiation has completed. */
  public boolean complete() {
    return complete;
  }

  /** Whether frames are wrapped. */
  public boolean wraps() {
    return client != null;
  }

  /** The frame payload {@code message} as it goes on the wire. */
  public byte[] wrap(byte[] message, int offset, int length) throws SaslException {
    SaslClient c = client;
    synchronized (mechanism) {
      return c.wrap(message, offset, length);
    }
  }

  /**
   * A frame payload as it arrived, unwrapped. A mechanism that discards a frame whose integrity
   * check fails (the JDK's DIGEST-MD5 returns nothing, as RFC 2831 has it) fails here: no Thrift
   * message is empty, and the frame's reply is lost.
   */
  public byte[] unwrap(byte[] wrapped) throws SaslException {
    SaslClient c = client;
    byte[] message;
    synchronized (mechanism) {
      message = c.unwrap(wrapped, 0, wrapped.length);
    }
    if (message.length == 0 && wrapped.length > 0) {
      throw new SaslException(
          "the mechanism discarded it (its integrity or sequence check failed)");
    }
    return message;
  }
}
