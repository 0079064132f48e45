package io.thriftnio.core.wire;

import io.thriftnio.core.WireKind;
import java.nio.ByteBuffer;
import java.util.Map;

/** {@link WireKind#UNFRAMED}: requests go as they are; each reply is walked to its end. */
final class UnframedClientCodec extends ReplyReader {

  private static final byte[] NO_HEAD = new byte[0];

  /**
   * @param maxFrameSize the largest reply accepted, in bytes
   * @param peer the server as every message of this library writes it
   */
  UnframedClientCodec(int maxFrameSize, String peer) {
    super(new UnframedReplyDecoder(maxFrameSize, peer), peer);
  }

  @Override
  public WireKind wireKind() {
    return WireKind.UNFRAMED;
  }

  @Override
  public byte[] head(
      ByteBuffer message,
      boolean oneway,
      Map<String, String> headers,
      int seqId,
      long timeoutMillis) {
    return NO_HEAD;
  }
}
