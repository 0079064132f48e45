package io.thriftnio.core.wire;

import io.thriftnio.core.WireKind;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.Framing;
import java.net.SocketAddress;
import java.util.Set;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * Splits a server connection's {@code TFramedTransport} frames: a signed 32-bit big-endian length,
 * then that many bytes of request. The payload is handed out as a slice of the input. A client's
 * replies: {@link FramedReplyDecoder}.
 *
 * <pre>
 * | 00 00 00 0B | 11 payload bytes | 00 00 00 05 | 5 payload bytes | 00 00 ...
 *   MESSAGE: consumed 15, payload at 4, 11 bytes; then consumed 9, payload at 4, 5 bytes; NEED_MORE
 * </pre>
 *
 * <p>A length {@code <= 0} or above {@code maxFrameSize} is refused as soon as its four bytes are
 * here, before anything is allocated for the frame. On a server that gave a header protocol, the
 * refusal of a frame that is too large carries the message header read from the bytes that came
 * with the length (never waiting for more: a hostile peer would hold the connection open), so that
 * the caller's sequence id can be answered.
 */
final class FramedDecoder implements Decoder {

  /** The framed kind: any first byte a positive length starts with. */
  static final WireFormat KIND =
      new WireFormat("FRAMED", WireKind.FRAMED) {
        @Override
        public int detect(ByteSource in, int start, int available) {
          return (in.getByte(start) & 0xff) < 0x80 ? YES : NO;
        }

        @Override
        public String looksLike() {
          return "a frame length";
        }

        @Override
        public Decoder newDecoder(WireSettings settings, SocketAddress peer) {
          return new FramedDecoder(
              settings.maxFrameSize(),
              settings.headerProtocol(),
              peer,
              Envelope.FRAMED,
              settings.accepted());
        }

        @Override
        public Envelope envelope() {
          return Envelope.FRAMED;
        }
      };

  private final int maxFrameSize;
  private final TProtocolFactory headerProtocol;
  private final SocketAddress peer;
  private final Envelope envelope;

  private final Set<WireKind> accepted;

  /**
   * @param headerProtocol reads an oversize frame's header, to answer its caller; {@code null} to
   *     skip that
   * @param peer the remote address, for the error
   * @param envelope the envelope of each frame
   * @param accepted the server's accepted kinds, for the advice in a refusal
   */
  FramedDecoder(
      int maxFrameSize,
      TProtocolFactory headerProtocol,
      SocketAddress peer,
      Envelope envelope,
      Set<WireKind> accepted) {
    this.accepted = accepted;
    this.maxFrameSize = maxFrameSize;
    this.headerProtocol = headerProtocol;
    this.peer = peer;
    this.envelope = envelope;
  }

  @Override
  public WireEvent decode(ByteSource in, int start, int available, Decoded out) {
    if (available < Framing.HEADER_SIZE) {
      return out.needMore();
    }
    int length = in.getInt(start);
    if (length <= 0 || length > maxFrameSize) {
      return out.refused(failOnInvalidLength(in, start, available, length));
    }
    if (available - Framing.HEADER_SIZE < length) {
      return out.needMore();
    }
    if (isTHeader(in, start + Framing.HEADER_SIZE, length)) {
      // No protocol's message starts 0f ff (a non-strict binary name of 268 MB): a THeader frame.
      String hint = hint(in, start, available);
      if (hint != null) {
        return out.refused(
            Refusal.of(
                "frame of " + length + " bytes from " + peer + " refused: " + hint, null, null));
      }
    }
    return out.message(Framing.HEADER_SIZE + length, Framing.HEADER_SIZE, length, envelope);
  }

  private Refusal failOnInvalidLength(ByteSource in, int start, int available, int length) {
    FrameSizeException cause = new FrameSizeException(length, maxFrameSize, peer);
    String hint = hint(in, start, available);
    if (hint != null) {
      String reason = withoutForeignBytes(cause.getMessage()) + "; " + hint;
      FirstBytes.Shape shape = FirstBytes.shape(FirstBytes.copy(in, start, available, 8), 8);
      if (shape != null && shape.wireKind() == WireKind.UNFRAMED && headerProtocol != null) {
        // An unframed caller reads an unframed answer: the hint reaches it too, when the bytes
        // that came hold its message header in the server's protocol.
        TMessage header = HeaderPeek.read(in, start, available, headerProtocol);
        if (header != null) {
          return Refusal.of(reason, header, Envelope.UNFRAMED);
        }
      }
      return Refusal.frameSize(cause, null, reason);
    }
    TMessage header = null;
    if (length > maxFrameSize && headerProtocol != null) {
      // Only the bytes that came with the length: waiting for more lets a peer hold us open.
      header =
          HeaderPeek.read(
              in, start + Framing.HEADER_SIZE, available - Framing.HEADER_SIZE, headerProtocol);
    }
    return Refusal.frameSize(cause, header);
  }

  /**
   * Whether a frame's payload is a THeader frame (bytes 0-1 {@code 0f ff}), or one inside a framed
   * frame (its own length, {@code length - 4}, then {@code 0f ff}).
   */
  private static boolean isTHeader(ByteSource in, int payload, int length) {
    if (length >= 2 && isMagic(in, payload)) {
      return true;
    }
    return length >= 6 && in.getInt(payload) == length - 4 && isMagic(in, payload + 4);
  }

  private static boolean isMagic(ByteSource in, int at) {
    return (in.getByte(at) & 0xff) == 0x0f && (in.getByte(at + 1) & 0xff) == 0xff;
  }

  /** A server's hint for the connection's first bytes ({@link FirstBytes#serverHint}), or null. */
  private String hint(ByteSource in, int start, int available) {
    byte[] first = FirstBytes.copy(in, start, available, FirstBytes.ENOUGH);
    return FirstBytes.serverHint(first, first.length, accepted);
  }

  /** The frame-size text without its "the bytes look like" part, which the hint says better. */
  static String withoutForeignBytes(String message) {
    int cut = message.indexOf("; the bytes look like");
    return cut < 0 ? message : message.substring(0, cut);
  }
}
