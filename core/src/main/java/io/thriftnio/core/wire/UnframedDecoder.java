package io.thriftnio.core.wire;

import io.thriftnio.core.WireKind;
import java.net.SocketAddress;

/**
 * Cuts a server connection's unframed Thrift requests ({@code TSocket} without {@code
 * TFramedTransport}, {@code TBufferedTransport}) out of a stream: each message's end is found by
 * walking its encoding ({@link MessageWalk}), the walk resumed where it stopped on each read, and
 * the message is handed out whole, as a slice of the input. The encoding is the kind the sniffer
 * chose. A client's replies: {@link UnframedReplyDecoder}.
 *
 * <p>Every size a message declares is checked against {@code maxFrameSize} as soon as it is read,
 * and nesting is bounded by {@link WireSettings#MAX_DEPTH}: a message that breaks either is refused
 * with its header, when read, for an answer.
 */
final class UnframedDecoder implements Decoder {

  /** Strict {@code TBinaryProtocol} messages back to back. */
  static final WireFormat BINARY = kind("UNFRAMED_BINARY", 0x80);

  /** {@code TCompactProtocol} messages back to back. */
  static final WireFormat COMPACT = kind("UNFRAMED_COMPACT", 0x82);

  /** {@code TJSONProtocol} messages back to back. */
  static final WireFormat JSON = kind("UNFRAMED_JSON", '[');

  private static WireFormat kind(String name, int firstByte) {
    return new WireFormat(name, WireKind.UNFRAMED) {
      @Override
      public int detect(ByteSource in, int start, int available) {
        return (in.getByte(start) & 0xff) == firstByte ? YES : NO;
      }

      @Override
      public String looksLike() {
        return "an unframed Thrift message";
      }

      @Override
      public Decoder newDecoder(WireSettings settings, SocketAddress peer) {
        MessageWalk walk =
            MessageWalk.forFirstByte(
                (byte) firstByte, settings.maxFrameSize(), WireSettings.MAX_DEPTH);
        return new UnframedDecoder(walk, peer, Envelope.UNFRAMED);
      }

      @Override
      public Envelope envelope() {
        return Envelope.UNFRAMED;
      }
    };
  }

  private final MessageWalk walk;
  private final SocketAddress peer;
  private final Envelope envelope;

  private UnframedDecoder(MessageWalk walk, SocketAddress peer, Envelope envelope) {
    this.walk = walk;
    this.peer = peer;
    this.envelope = envelope;
  }

  @Override
  public WireEvent decode(ByteSource in, int start, int available, Decoded out) {
    int length;
    try {
      length = walk.next(in, start, available);
    } catch (MessageWalk.Invalid e) {
      return out.refused(
          Refusal.of(
              "invalid unframed " + walk.protocol + " message from " + peer + ": " + e.getMessage(),
              e.header(),
              envelope));
    }
    if (length == MessageWalk.NEED_MORE) {
      return out.needMore();
    }
    walk.reset();
    return out.message(length, 0, length, envelope);
  }

  // endOfStream: the default; a server counts a request cut short, and has nobody to tell.
}
