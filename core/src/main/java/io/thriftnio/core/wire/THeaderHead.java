package io.thriftnio.core.wire;

import io.thriftnio.core.util.internal.Framing;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.thrift.protocol.TProtocolException;

/**
 * The bytes before a THeader message, on both sides: the frame's length, the fixed part and a
 * header section with the message's protocol id, transforms, and info headers. A client's request
 * has no transform and the client's info headers:
 *
 * <pre>
 * | LENGTH | 0F FF | FLAGS | SEQUENCE ID | SIZE/4 | proto | 00 | 01 n (klen key vlen value)... | pad |
 *   int32            16 bit  the channel's  16 bit   varint       INFO_KEYVALUE, varints            0s
 * </pre>
 *
 * <p>The protocol id is read from the message's first bytes: {@code 80 01} (strict binary) is 0,
 * {@code 82} (compact) is 2. Nothing else can be named in THeader (JSON has no id, and non-strict
 * binary has no version to tell it apart), so {@link #protocolId} refuses it before anything is
 * sent.
 */
final class THeaderHead {

  /**
   * The flag by which a client says it matches replies by the header's sequence id, so a server may
   * answer out of order (fbthrift's and Apache C++'s {@code HEADER_FLAG_SUPPORT_OUT_OF_ORDER};
   * Apache's spec names no flag). Their header clients set it on every request.
   */
  static final int FLAG_SUPPORT_OUT_OF_ORDER = 0x01;

  /** The largest header section: its size travels as a 16-bit count of 4-byte words. */
  static final int MAX_SECTION_SIZE = 0xFFFF * 4;

  private THeaderHead() {}

  /**
   * The THeader protocol id of {@code message}, from its first bytes (not moved).
   *
   * @throws TProtocolException {@code NOT_IMPLEMENTED} for a message THeader cannot name
   */
  static int protocolId(ByteBuffer message, String peer) throws TProtocolException {
    int at = message.position();
    int first = message.remaining() > 0 ? message.get(at) & 0xff : -1;
    if (first == 0x82) {
      return THeaderSection.COMPACT;
    }
    if (first == 0x80 && message.remaining() > 1 && (message.get(at + 1) & 0xff) == 0x01) {
      return THeaderSection.BINARY;
    }
    throw new TProtocolException(
        TProtocolException.NOT_IMPLEMENTED,
        String.format(
            "THeader request to %s not sent: the message starts %s (expected: 80 01, strict"
                + " binary, or 82, compact; THeader has no protocol id for JSON or non-strict"
                + " binary)",
            peer, first < 0 ? "empty" : first == '[' ? "5b, JSON" : String.format("%02x", first)));
  }

  /**
   * The head before a body of {@code bodyLength} bytes: the frame's length, the fixed part and the
   * header section. The one encoder of both sides: a client's request (no transform) and a server's
   * reply (the request's transforms, the handler's headers).
   *
   * @param protocolId {@link THeaderSection#BINARY} or {@link THeaderSection#COMPACT}
   * @param flags the header's flags
   * @param seqId the header's sequence id
   * @param transforms the transform ids (ids below 128: one byte each)
   * @param headers the key/value info headers, in order
   * @param bodyLength the body's length after the transforms, in bytes
   * @return the head, its position 0
   * @throws TProtocolException {@code SIZE_LIMIT} if the headers do not fit a header section
   */
  static ByteBuffer head(
      int protocolId,
      int flags,
      int seqId,
      int[] transforms,
      Map<String, String> headers,
      int bodyLength)
      throws TProtocolException {
    byte[][] info = infoHeaders(headers);
    int section = 2 + transforms.length; // protocol id, count, ids
    if (info != null) {
      section += 1 + varintSize(headers.size());
      for (byte[] b : info) {
        section += varintSize(b.length) + b.length;
      }
    }
    int padded = (section + 3) & ~3;
    if (padded > MAX_SECTION_SIZE) {
      throw new TProtocolException(
          TProtocolException.SIZE_LIMIT,
          "THeader info headers of "
              + section
              + " bytes exceed the header section's "
              + MAX_SECTION_SIZE
              + " bytes");
    }
    ByteBuffer head =
        ByteBuffer.allocate(Framing.HEADER_SIZE + THeaderEnvelope.FIXED_SIZE + padded)
            .putInt(THeaderEnvelope.FIXED_SIZE + padded + bodyLength)
            .putShort((short) THeaderEnvelope.MAGIC)
            .putShort((short) flags)
            .putInt(seqId)
            .putShort((short) (padded / 4))
            .put((byte) protocolId)
            .put((byte) transforms.length);
    for (int id : transforms) {
      head.put((byte) id);
    }
    if (info != null) {
      head.put((byte) THeaderSection.INFO_KEYVALUE);
      putVarint(head, headers.size());
      for (byte[] b : info) {
        putVarint(head, b.length);
        head.put(b);
      }
    }
    // The rest is the zero padding ByteBuffer.allocate left there.
    return head.position(0);
  }

  /** Keys and values alternately, as UTF-8; {@code null} for none. */
  private static byte[][] infoHeaders(Map<String, String> headers) {
    if (headers.isEmpty()) {
      return null;
    }
    byte[][] info = new byte[headers.size() * 2][];
    int i = 0;
    for (Map.Entry<String, String> e : headers.entrySet()) {
      info[i++] = e.getKey().getBytes(StandardCharsets.UTF_8);
      info[i++] = e.getValue().getBytes(StandardCharsets.UTF_8);
    }
    return info;
  }

  private static int varintSize(int value) {
    int size = 1;
    while ((value & ~0x7f) != 0) {
      value >>>= 7;
      size++;
    }
    return size;
  }

  private static void putVarint(ByteBuffer out, int value) {
    while ((value & ~0x7f) != 0) {
      out.put((byte) ((value & 0x7f) | 0x80));
      value >>>= 7;
    }
    out.put((byte) value);
  }
}
