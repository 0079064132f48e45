package io.thriftnio.core.wire;

import io.thriftnio.core.WireKind;
import org.apache.thrift.transport.TTransportException;

/**
 * Cuts unframed Thrift messages ({@code TSocket} without {@code TFramedTransport}, {@code
 * TBufferedTransport}) out of a stream: each message's end is found by walking its encoding ({@link
 * MessageWalk}), the walk resumed where it stopped on each read, and the message is handed out
 * whole, as a slice of the input. A server knows the encoding from the kind the sniffer chose; a
 * client learns it from the first reply's first byte ({@code 80} strict binary, {@code 82} compact,
 * {@code [} JSON) and keeps it for the connection.
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
      public Decoder newDecoder(WireSettings settings, Object peer) {
        MessageWalk walk =
            MessageWalk.forFirstByte(
                (byte) firstByte, settings.maxFrameSize(), WireSettings.MAX_DEPTH);
        return new UnframedDecoder(walk, settings.maxFrameSize(), peer, Envelope.UNFRAMED);
      }

      @Override
      public Envelope envelope() {
        return Envelope.UNFRAMED;
      }
    };
  }

  private final int maxMessageSize;
  private final Object peer;

  /** Each request's envelope on a server; {@code null} on a client. */
  private final Envelope envelope;

  /** {@code null} on a client until the first reply's first byte is here. */
  private MessageWalk walk;

  private UnframedDecoder(MessageWalk walk, int maxMessageSize, Object peer, Envelope envelope) {
    this.walk = walk;
    this.maxMessageSize = maxMessageSize;
    this.peer = peer;
    this.envelope = envelope;
  }

  /**
   * A client's decoder of unframed replies: errors are {@code TTransportException}s naming {@code
   * peer} as the caller named it.
   */
  static UnframedDecoder forReplies(int maxMessageSize, String peer) {
    return new UnframedDecoder(null, maxMessageSize, peer, null);
  }

  @Override
  public WireEvent decode(ByteSource in, int start, int available, Decoded out) {
    if (walk == null) {
      if (available == 0) {
        return out.needMore();
      }
      byte first = in.getByte(start);
      walk = MessageWalk.forFirstByte(first, maxMessageSize, WireSettings.MAX_DEPTH);
      if (walk == null) {
        return out.refused(Refusal.ofClient(notAReply(peer, first)));
      }
    }
    int length;
    try {
      length = walk.next(in, start, available);
    } catch (MessageWalk.Invalid e) {
      String reason =
          "invalid unframed " + walk.protocol + " message from " + peer + ": " + e.getMessage();
      return out.refused(
          envelope != null
              ? Refusal.of(reason, e.header(), envelope)
              : Refusal.ofClient(invalid(reason)));
    }
    if (length == MessageWalk.NEED_MORE) {
      return out.needMore();
    }
    walk.reset();
    return out.message(length, 0, length, envelope);
  }

  @Override
  public WireEvent endOfStream(ByteSource in, int start, int available, Decoded out) {
    if (envelope != null || available == 0) {
      return out.needMore(); // a server counts a request cut short; nobody to tell
    }
    return out.refused(Refusal.ofClient(truncated(peer, available, maxMessageSize)));
  }

  // ---- the errors every unframed client reports, on every transport ----

  /**
   * The first byte of a reply is no unframed message start: the peer is no unframed Thrift server
   * (a framed one, say, whose length prefix starts {@code 00}).
   */
  static TTransportException notAReply(Object peer, byte first) {
    return invalid(
        String.format(
            "invalid unframed reply from %s: first byte %02x (expected: 80 strict binary, 82"
                + " compact or 5b '[' JSON; a framed server's replies start with a length)",
            peer, first & 0xff));
  }

  /** A reply that breaks its encoding or the size limit; {@code reason} says which and where. */
  static TTransportException invalid(String reason) {
    return new TTransportException(
        TTransportException.CORRUPTED_DATA, reason + "; connection closed");
  }

  /** The stream ended {@code received} bytes into a reply. */
  static TTransportException truncated(Object peer, int received, int maxFrameSize) {
    return new TTransportException(
        TTransportException.END_OF_FILE,
        "connection to "
            + peer
            + " closed by the peer "
            + received
            + " bytes into an unframed reply (maxFrameSize "
            + maxFrameSize
            + ")");
  }
}
