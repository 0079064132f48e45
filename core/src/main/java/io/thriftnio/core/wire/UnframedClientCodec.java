package io.thriftnio.core.wire;

import io.thriftnio.core.WireKind;
import java.nio.ByteBuffer;
import java.util.Map;

/** {@link WireKind#UNFRAMED}: requests go as they are; each reply is walked to its end. */
final class UnframedClientCodec implements ClientCodec {

  private static final byte[] NO_HEAD = new byte[0];

  private final ReplyReader reader;
  private final String peer;

  /**
   * @param maxFrameSize the largest reply accepted, in bytes
   * @param peer the server as every message of this library writes it
   */
  UnframedClientCodec(int maxFrameSize, String peer) {
    this.reader = new ReplyReader(new UnframedReplyDecoder(maxFrameSize, peer), peer);
    this.peer = peer;
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

  @Override
  public WireEvent next(ByteSource in, int start, int available) {
    return reader.next(in, start, available);
  }

  @Override
  public WireEvent endOfStream(ByteSource in, int start, int available) {
    return reader.endOfStream(in, start, available);
  }

  @Override
  public Decoded decoded() {
    return reader.decoded();
  }

  @Override
  public boolean rejected() {
    return reader.rejected();
  }

  @Override
  public String toString() {
    return "ClientCodec{UNFRAMED, " + peer + "}";
  }
}
