package io.thriftnio.core.wire;

import io.thriftnio.core.Framing;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.thrift.protocol.TProtocolException;

/**
 * The bytes a THeader client puts before each request message: the frame's length, the fixed part
 * and a header section with the message's protocol id, no transform, and the request's info
 * headers.
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
final class THeaderRequestHead {

  /**
   * The flag that says the client matches replies by the header's sequence id, so a server may
   * answer out of order (fbthrift's and Apache C++'s {@code HEADER_FLAG_SUPPORT_OUT_OF_ORDER}).
   */
  static final int FLAG_SUPPORT_OUT_OF_ORDER = 0x01;

  /** The largest header section: its size travels as a 16-bit count of 4-byte words. */
  static final int MAX_SECTION_SIZE = 0xFFFF * 4;

  private THeaderRequestHead() {}

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
   * The head before a message of {@code bodyLength} bytes.
   *
   * @param protocolId from {@link #protocolId}
   * @param flags the header's flags
   * @param seqId the header's sequence id: the connection's own, one per request
   * @param headers the info headers, in order
   * @throws TProtocolException {@code SIZE_LIMIT} if the headers do not fit a header section
   */
  static byte[] head(
      int protocolId, int flags, int seqId, Map<String, String> headers, int bodyLength)
      throws TProtocolException {
    ByteArrayOutputStream section = new ByteArrayOutputStream(16);
    section.write(protocolId);
    section.write(0); // no transform
    if (!headers.isEmpty()) {
      varint(section, THeaderSection.INFO_KEYVALUE);
      varint(section, headers.size());
      for (Map.Entry<String, String> e : headers.entrySet()) {
        string(section, e.getKey());
        string(section, e.getValue());
      }
    }
    int size = section.size();
    int padded = (size + 3) & ~3;
    if (padded > MAX_SECTION_SIZE) {
      throw new TProtocolException(
          TProtocolException.SIZE_LIMIT,
          "THeader info headers of "
              + size
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
            .putShort((short) (padded / 4));
    head.put(section.toByteArray()); // the padding is the zeros allocate left
    return head.array();
  }

  private static void string(ByteArrayOutputStream out, String s) {
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    varint(out, bytes.length);
    out.write(bytes, 0, bytes.length);
  }

  private static void varint(ByteArrayOutputStream out, int value) {
    while ((value & ~0x7f) != 0) {
      out.write((value & 0x7f) | 0x80);
      value >>>= 7;
    }
    out.write(value);
  }
}
