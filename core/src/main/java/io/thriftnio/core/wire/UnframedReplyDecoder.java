package io.thriftnio.core.wire;

import org.apache.thrift.transport.TTransportException;

/**
 * A client connection's unframed replies: each reply's end found by walking its encoding ({@link
 * MessageWalk}), which the first reply's first byte tells ({@code 80} strict binary, {@code 82}
 * compact, {@code [} JSON) and the connection keeps. Every size a reply declares is checked against
 * {@code maxFrameSize} as soon as it is read, and nesting is bounded by {@link
 * WireSettings#MAX_DEPTH}; a reply that breaks either, or a stream that ends inside a reply, is
 * refused with a {@code TTransportException} naming the server. The server's side is {@link
 * UnframedDecoder}.
 */
final class UnframedReplyDecoder implements Decoder {

  private final int maxMessageSize;
  private final String peer;

  /** {@code null} until the first reply's first byte is here. */
  private MessageWalk walk;

  /**
   * @param maxMessageSize the largest reply accepted, in bytes
   * @param peer the server as the caller named it
   */
  UnframedReplyDecoder(int maxMessageSize, String peer) {
    this.maxMessageSize = maxMessageSize;
    this.peer = peer;
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
      return out.refused(
          Refusal.ofClient(
              invalid(
                  "invalid unframed "
                      + walk.protocol
                      + " message from "
                      + peer
                      + ": "
                      + e.getMessage())));
    }
    if (length == MessageWalk.NEED_MORE) {
      return out.needMore();
    }
    walk.reset();
    return out.message(length, 0, length, null);
  }

  @Override
  public WireEvent endOfStream(ByteSource in, int start, int available, Decoded out) {
    if (available == 0) {
      return out.needMore();
    }
    return out.refused(Refusal.ofClient(truncated(peer, available, maxMessageSize)));
  }

  /**
   * The first byte of a reply is no unframed message start: the peer is no unframed Thrift server
   * (a framed one, say, whose length prefix starts {@code 00}).
   */
  private static TTransportException notAReply(String peer, byte first) {
    return invalid(
        String.format(
            "invalid unframed reply from %s: first byte %02x (expected: 80 strict binary, 82"
                + " compact or 5b '[' JSON; a framed server's replies start with a length)",
            peer, first & 0xff));
  }

  /** A reply that breaks its encoding or the size limit; {@code reason} says which and where. */
  private static TTransportException invalid(String reason) {
    return new TTransportException(
        TTransportException.CORRUPTED_DATA, reason + "; connection closed");
  }

  /** The stream ended {@code received} bytes into a reply. */
  private static TTransportException truncated(String peer, int received, int maxFrameSize) {
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
