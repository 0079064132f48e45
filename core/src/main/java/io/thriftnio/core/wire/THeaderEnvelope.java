package io.thriftnio.core.wire;

import io.thriftnio.core.util.internal.Framing;
import java.nio.ByteBuffer;
import java.util.Map;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TProtocolException;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * How the reply to one THeader request leaves, and what the call path reads from the request
 * besides its message: the protocol to read and write it with, and its info headers. Immutable but
 * for the reply's own headers, given once before {@link #encode} ({@link #responseHeaders}).
 *
 * <pre>
 * reply frame from the call path:  | length | reply message |
 * sent:  | length | 0F FF | flags | seqid | size/4 | proto | n | ids | info | 00 pad | message |
 *          the request's flags, sequence id, protocol id and transforms; info: the reply's own
 *          key/value headers (01, count, then length-prefixed key and value each), if any
 * </pre>
 *
 * <p>The reply echoes what Apache Thrift's C++ and Python servers echo: the flags, the header's
 * sequence id and the protocol id. A request with {@link THeaderHead#FLAG_SUPPORT_OUT_OF_ORDER} may
 * be answered as soon as its call ends ({@link #outOfOrder()}); its client matches the reply by the
 * echoed sequence id. Its info headers are the reply's own ({@code
 * ServerCallContext.setResponseHeader}), never the request's, as those servers do. The transforms
 * are the request's: a peer that compressed its request reads a compressed reply.
 */
final class THeaderEnvelope extends Envelope {

  /** THeader's protocol id 0; strict writes, as every THeader peer reads them. */
  static final TProtocolFactory BINARY = new TBinaryProtocol.Factory();

  /** THeader's protocol id 2. */
  static final TProtocolFactory COMPACT = new TCompactProtocol.Factory();

  /** Bytes 4-5 of every THeader frame. */
  static final int MAGIC = 0x0FFF;

  /** The fixed part after the length: magic, flags, sequence id, header size. */
  static final int FIXED_SIZE = 10;

  private final int protocolId;
  private final int flags;
  private final int seqId;
  private final int[] transforms;
  private final Map<String, String> headers;
  private final boolean inFramed;

  /** The reply's own info headers: set by the call path before encode, read by it. */
  private Map<String, String> replyHeaders = Map.of();

  /**
   * @param protocolId {@link THeaderSection#BINARY} or {@link THeaderSection#COMPACT}
   * @param flags the request's flags (16 bits)
   * @param seqId the sequence id of the request's header
   * @param transforms the request's transform ids (only zlib is served)
   * @param headers the request's info headers, read-only
   * @param inFramed whether the request came inside a framed frame of its own, and so its reply
   *     goes
   */
  THeaderEnvelope(
      int protocolId,
      int flags,
      int seqId,
      int[] transforms,
      Map<String, String> headers,
      boolean inFramed) {
    this.protocolId = protocolId;
    this.flags = flags;
    this.seqId = seqId;
    this.transforms = transforms;
    this.headers = headers;
    this.inFramed = inFramed;
  }

  @Override
  public void encode(ByteBuffer frame, boolean unreadable, Outbound out) {
    if (frame == null) {
      return; // oneway, or unreadable: the connection closes, THeader has nothing else to say
    }
    ByteBuffer body = message(frame);
    if (transforms.length > 0) {
      byte[] bytes = new byte[body.remaining()];
      body.get(bytes);
      for (int i = 0; i < transforms.length; i++) {
        bytes = THeaderZlib.deflate(bytes, 0, bytes.length); // zlib is the one transform read
      }
      body = ByteBuffer.wrap(bytes);
    }
    ByteBuffer head = head(body.remaining());
    if (inFramed) {
      ByteBuffer framed = ByteBuffer.allocate(Framing.HEADER_SIZE + head.remaining());
      head = framed.putInt(head.remaining() + body.remaining()).put(head).flip();
    }
    out.send(head, body);
  }

  /**
   * The frame's length, fixed part and header section, for a body of {@code bodyLength} bytes. The
   * info headers were bounded when set (ServerCallContext: 100 headers, 64 KiB of keys and values,
   * the decoder's own limits), so the section stays far below its 262,140 bytes.
   */
  private ByteBuffer head(int bodyLength) {
    try {
      return THeaderHead.head(protocolId, flags, seqId, transforms, replyHeaders, bodyLength);
    } catch (TProtocolException e) {
      throw new IllegalStateException("reply headers beyond the bounds checked when set", e);
    }
  }

  @Override
  public boolean outOfOrder() {
    return (flags & THeaderHead.FLAG_SUPPORT_OUT_OF_ORDER) != 0;
  }

  /** The header's sequence id. */
  int seqId() {
    return seqId;
  }

  /** The header's flags (16 bits). */
  int flags() {
    return flags;
  }

  @Override
  public TProtocolFactory protocol() {
    return protocolId == THeaderSection.COMPACT ? COMPACT : BINARY;
  }

  @Override
  public void responseHeaders(Map<String, String> headers) {
    this.replyHeaders = headers;
  }

  @Override
  public Map<String, String> headers() {
    return headers;
  }

  @Override
  public String toString() {
    return "THeader{protocol "
        + protocolId
        + ", seqid "
        + seqId
        + ", transforms "
        + transforms.length
        + ", headers "
        + headers.size()
        + "}";
  }
}
