package io.thriftnio.core.wire;

import io.thriftnio.core.WireKind;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.Framing;
import java.net.SocketAddress;

/**
 * A client connection's framed replies: a signed 32-bit big-endian length, then that many bytes of
 * reply, handed out as a slice of the input. A length {@code <= 0} or above {@code maxFrameSize} is
 * refused as soon as its four bytes are here, saying what the bytes look like when they are no
 * frame (an unframed or HTTP server's answer). The server's side is {@link FramedDecoder}.
 */
final class FramedReplyDecoder implements Decoder {

  private final int maxFrameSize;
  private final SocketAddress peer;

  /**
   * @param maxFrameSize the largest reply accepted, in bytes
   * @param peer the server, for the error; may be {@code null}
   */
  FramedReplyDecoder(int maxFrameSize, SocketAddress peer) {
    this.maxFrameSize = Framing.checkMaxFrameSize(maxFrameSize);
    this.peer = peer;
  }

  @Override
  public WireEvent decode(ByteSource in, int start, int available, Decoded out) {
    if (available < Framing.HEADER_SIZE) {
      return out.needMore();
    }
    int length = in.getInt(start);
    if (length <= 0 || length > maxFrameSize) {
      // The log line says what ClientErrors tells the calls.
      FrameSizeException cause = new FrameSizeException(length, maxFrameSize, peer);
      byte[] first = FirstBytes.copy(in, start, available, FirstBytes.ENOUGH);
      String hint = FirstBytes.replyHint(first, first.length, WireKind.FRAMED);
      return out.refused(
          hint == null
              ? Refusal.frameSize(cause, null)
              : Refusal.frameSize(
                  cause,
                  null,
                  FramedDecoder.withoutForeignBytes(cause.getMessage()) + ": " + hint));
    }
    if (available - Framing.HEADER_SIZE < length) {
      return out.needMore();
    }
    return out.message(Framing.HEADER_SIZE + length, Framing.HEADER_SIZE, length, null);
  }
}
