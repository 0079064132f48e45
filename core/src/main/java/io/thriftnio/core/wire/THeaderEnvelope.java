package io.thriftnio.core.wire;

import io.thriftnio.core.Framing;
import java.nio.ByteBuffer;
import java.util.Map;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * How the reply to one THeader request leaves, and what the call path reads from the request
 * besides its message: the protocol to read and write it with, and its info headers. Immutable.
 *
 * <pre>
 * reply frame from the call path:  | length | reply message |
 * sent:  | length | 0F FF | flags | seqid | size/4 | proto | n | ids | 00 pad | message or zlib |
 *          the request's flags, sequence id, protocol id and transforms; no info headers
 * </pre>
 *
 * <p>The reply echoes what Apache Thrift's C++ and Python servers echo: the flags, the header's
 * sequence id and the protocol id. Their info headers are the handler's own, never the request's
 * (those servers send none unless the handler sets some), so none leave here. The transforms are
 * the request's: a peer that compressed its request reads a compressed reply.
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

  /**
   * @param protocolId {@link THeaderSection#BINARY} or {@link THeaderSection#COMPACT}
   * @param flags the request's flags (16 bits)
   * @param seqId the sequence id of the request's header
   * @param transforms the request's transform ids (only zlib is served)
   * @param headers the request's info headers, read-only
   */
  THeaderEnvelope(
      int protocolId, int flags, int seqId, int[] transforms, Map<String, String> headers) {
    this.protocolId = protocolId;
    this.flags = flags;
    this.seqId = seqId;
    this.transforms = transforms;
    this.headers = headers;
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
    out.send(head(body.remaining()), body);
  }

  /** The frame's length, fixed part and header section, for a body of {@code bodyLength} bytes. */
  private ByteBuffer head(int bodyLength) {
    int section = 2 + transforms.length; // each varint here is one byte: ids below 128
    int padded = (section + 3) & ~3;
    ByteBuffer head = ByteBuffer.allocate(Framing.HEADER_SIZE + FIXED_SIZE + padded);
    head.putInt(FIXED_SIZE + padded + bodyLength)
        .putShort((short) MAGIC)
        .putShort((short) flags)
        .putInt(seqId)
        .putShort((short) (padded / 4))
        .put((byte) protocolId)
        .put((byte) transforms.length);
    for (int id : transforms) {
      head.put((byte) id);
    }
    // The rest is the zero padding ByteBuffer.allocate left there.
    return head.position(0);
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
