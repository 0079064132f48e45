package io.thriftnio.core.wire;

import io.thriftnio.core.sasl.SaslIdentity;
import io.thriftnio.core.util.internal.Framing;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import javax.security.sasl.SaslException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the replies of one SASL connection leave, and who it authenticated as. Under {@code auth} a
 * reply leaves as a framed one does; under {@code auth-int} and {@code auth-conf} its message is
 * wrapped by the mechanism and the wrapped bytes are length-prefixed:
 *
 * <pre>
 * reply frame from the call path:  | length | reply message |
 * auth                       sends | length | reply message |            as it is
 * auth-int, auth-conf        sends | length' | wrap(reply message) |      one new buffer
 * </pre>
 *
 * <p>Replies are wrapped in the order they leave (the call path encodes them one at a time, in
 * reply order), which the mechanisms' sequence numbers need. One per connection; its state is set
 * once, by the decoder, when the negotiation completes, before any request is delivered.
 */
final class SaslEnvelope extends Envelope {

  private static final Logger log = LoggerFactory.getLogger(SaslEnvelope.class);

  private final SocketAddress peer;
  private volatile SaslIdentity identity;
  private volatile SaslSession wrapping;

  SaslEnvelope(SocketAddress peer) {
    this.peer = peer;
  }

  /**
   * The negotiation completed.
   *
   * @param identity who the peer is
   * @param wrapping the mechanism that wraps each reply, or {@code null} under {@code auth}
   */
  void complete(SaslIdentity identity, SaslSession wrapping) {
    this.wrapping = wrapping;
    this.identity = identity;
  }

  @Override
  public SaslIdentity saslIdentity() {
    return identity;
  }

  @Override
  public void encode(ByteBuffer frame, boolean unreadable, Outbound out) {
    if (frame == null) {
      return;
    }
    SaslSession session = wrapping;
    if (session == null) {
      out.send(null, frame);
      return;
    }
    int length = frame.remaining() - Framing.HEADER_SIZE;
    byte[] message = new byte[length];
    frame.position(frame.position() + Framing.HEADER_SIZE).get(message);
    byte[] wrapped;
    try {
      wrapped = session.wrap(message, 0, length); // one at a time with the reading's unwrap
    } catch (SaslException | RuntimeException e) {
      // The context is gone (the connection closing disposed it) or broken: the reply cannot
      // leave; the peer's call fails when the connection closes.
      log.warn(
          "SASL {} reply of {} bytes to {} could not be wrapped: {}",
          identity.qop().saslName(),
          length,
          peer,
          e.toString());
      return;
    }
    ByteBuffer wire = ByteBuffer.allocate(Framing.HEADER_SIZE + wrapped.length);
    wire.putInt(wrapped.length).put(wrapped).flip();
    out.send(null, wire);
  }

  @Override
  public String toString() {
    SaslIdentity id = identity;
    return id == null ? "SASL(negotiating)" : "SASL(" + id.mechanism() + ", " + id.qop() + ")";
  }
}
