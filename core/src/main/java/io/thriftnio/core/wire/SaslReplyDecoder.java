package io.thriftnio.core.wire;

import io.thriftnio.core.sasl.SaslNegotiationException;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.Framing;
import java.net.SocketAddress;
import javax.security.sasl.SaslException;
import org.apache.thrift.transport.TTransportException;

/**
 * A SASL client connection's replies ({@code TSaslClientTransport}'s wire): first the server's
 * negotiation messages, each delivered whole, status and length included, for the client's
 * negotiation to read; from the {@code COMPLETE} message on, frames as {@link FramedDecoder} reads
 * them, each unwrapped by the negotiated mechanism when its quality of protection wraps ({@link
 * SaslLayer}).
 *
 * <pre>
 * | 02 | 00 00 00 20 | challenge | 05 | 00 00 00 00 |   MESSAGE x2: the whole negotiation messages
 * | 00 00 00 4B | wrapped reply |                      MESSAGE: the reply, unwrapped (its own array)
 * </pre>
 *
 * <p>Every length is checked before anything is allocated: a negotiation message's payload and a
 * frame against {@code maxFrameSize} (libthrift 0.25 bounds both by its frame limit too). A status
 * byte that names no status, as a framed server's reply would start, refuses the connection with a
 * {@link SaslNegotiationException} that says the server may not speak SASL. After {@code BAD} or
 * {@code ERROR} nothing more is read.
 */
final class SaslReplyDecoder implements Decoder {

  private final int maxFrameSize;
  private final SocketAddress peer;
  private final String peerName;
  private final String mechanism;
  private final SaslLayer layer;
  private boolean negotiating = true;
  private boolean refused;

  /**
   * @param peer the server, for the exceptions that carry it
   * @param peerName the server as every message of this library writes it
   */
  SaslReplyDecoder(
      int maxFrameSize, SocketAddress peer, String peerName, String mechanism, SaslLayer layer) {
    this.maxFrameSize = maxFrameSize;
    this.peer = peer;
    this.peerName = peerName;
    this.mechanism = mechanism;
    this.layer = layer;
  }

  @Override
  public WireEvent decode(ByteSource in, int start, int available, Decoded out) {
    if (refused) {
      return out.needMore();
    }
    return negotiating ? negotiation(in, start, available, out) : frame(in, start, available, out);
  }

  private WireEvent negotiation(ByteSource in, int start, int available, Decoded out) {
    SaslMessage message;
    try {
      message = SaslMessage.read(in, start, available, maxFrameSize);
    } catch (IllegalArgumentException e) {
      refused = true;
      return out.refused(
          Refusal.ofClient(
              new SaslNegotiationException(
                  mechanism,
                  peer,
                  e.getMessage() + ": the server may not speak SASL (a framed or unframed server?)",
                  null)));
    }
    if (message == null) {
      return out.needMore();
    }
    SaslMessage.Status status = message.status();
    if (status == SaslMessage.Status.COMPLETE) {
      negotiating = false;
    } else if (status == SaslMessage.Status.BAD || status == SaslMessage.Status.ERROR) {
      refused = true; // the server closes after a refusal; nothing after it is meant for us
    }
    int consumed = SaslMessage.HEADER_SIZE + message.payload().length;
    return out.message(consumed, 0, consumed, null);
  }

  private WireEvent frame(ByteSource in, int start, int available, Decoded out) {
    if (available < Framing.HEADER_SIZE) {
      return out.needMore();
    }
    int length = in.getInt(start);
    if (length <= 0 || length > maxFrameSize) {
      refused = true;
      return out.refused(
          Refusal.frameSize(new FrameSizeException(length, maxFrameSize, peer), null));
    }
    if (available - Framing.HEADER_SIZE < length) {
      return out.needMore();
    }
    int consumed = Framing.HEADER_SIZE + length;
    if (!layer.wraps()) {
      return out.message(consumed, Framing.HEADER_SIZE, length, null);
    }
    byte[] wrapped = new byte[length];
    in.getBytes(start + Framing.HEADER_SIZE, wrapped, 0, length);
    try {
      return out.message(consumed, layer.unwrap(wrapped), null);
    } catch (SaslException e) {
      refused = true;
      return out.refused(
          Refusal.ofClient(
              new TTransportException(
                  TTransportException.CORRUPTED_DATA,
                  "SASL "
                      + mechanism
                      + " reply of "
                      + length
                      + " bytes from "
                      + peerName
                      + " does not unwrap: "
                      + e.getMessage(),
                  e)));
    }
  }
}
