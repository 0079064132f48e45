package io.thriftnio.core.wire;

import io.thriftnio.core.WireKind;
import io.thriftnio.core.util.internal.Framing;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;

/** {@link WireKind#FRAMED}: each request behind its 4-byte length; replies are frames. */
final class FramedClientCodec extends ReplyReader {

  /**
   * @param maxFrameSize the largest reply accepted, in bytes
   * @param peer the server, for errors; may be {@code null}
   */
  FramedClientCodec(int maxFrameSize, SocketAddress peer) {
    super(new FramedReplyDecoder(maxFrameSize, peer), String.valueOf(peer));
  }

  /** A request's 4-byte length prefix. */
  static byte[] lengthPrefix(int length) {
    byte[] prefix = new byte[Framing.HEADER_SIZE];
    Framing.encodeLength(length, prefix, 0);
    return prefix;
  }

  @Override
  public WireKind wireKind() {
    return WireKind.FRAMED;
  }

  @Override
  public byte[] head(
      ByteBuffer message,
      boolean oneway,
      Map<String, String> headers,
      int seqId,
      long timeoutMillis) {
    return lengthPrefix(message.remaining());
  }
}
