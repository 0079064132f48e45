package io.thriftnio.core.wire;

import io.thriftnio.core.WireKind;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TProtocolException;

/**
 * {@link WireKind#HEADER}: each request behind its THeader head (protocol id, info headers, the
 * connection's sequence id, the out-of-order flag); replies are THeader frames, matched to their
 * requests by the header's sequence id.
 */
final class THeaderClientCodec extends ReplyReader {

  private static final int[] NO_TRANSFORMS = new int[0];

  private final THeaderDecoder decoder;
  private Map<String, String> replyHeaders = Map.of(); // the reading thread's
  private int replySeqId;

  /**
   * @param maxFrameSize the largest reply accepted, in bytes (after zlib)
   * @param address the server, for a frame size error
   * @param peer the server as every message of this library writes it
   */
  THeaderClientCodec(int maxFrameSize, InetSocketAddress address, String peer) {
    this(THeaderDecoder.forReplies(maxFrameSize, address), peer);
  }

  private THeaderClientCodec(THeaderDecoder decoder, String peer) {
    super(decoder, peer);
    this.decoder = decoder;
  }

  @Override
  public WireKind wireKind() {
    return WireKind.HEADER;
  }

  @Override
  public boolean carriesHeaders() {
    return true;
  }

  @Override
  public boolean matchesBySeqId() {
    return true;
  }

  @Override
  public TException refusal(ByteBuffer message, Map<String, String> headers) {
    try {
      THeaderHead.protocolId(message, peer());
      return null;
    } catch (TProtocolException e) {
      return e;
    }
  }

  @Override
  public byte[] head(
      ByteBuffer message,
      boolean oneway,
      Map<String, String> headers,
      int seqId,
      long timeoutMillis)
      throws TProtocolException {
    return THeaderHead.head(
            THeaderHead.protocolId(message, peer()),
            THeaderHead.FLAG_SUPPORT_OUT_OF_ORDER,
            seqId,
            NO_TRANSFORMS,
            HttpClientCodec.withTimeout(headers, timeoutMillis),
            message.remaining())
        .array();
  }

  @Override
  public Map<String, String> replyHeaders() {
    return replyHeaders;
  }

  @Override
  public int replySeqId() {
    return replySeqId;
  }

  @Override
  void delivered() {
    THeaderEnvelope envelope = decoder.lastEnvelope();
    replyHeaders = envelope.headers();
    replySeqId = envelope.seqId();
  }
}
