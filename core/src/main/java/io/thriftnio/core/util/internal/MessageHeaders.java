package io.thriftnio.core.util.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TField;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TType;

/**
 * Reads what the call paths need from a whole Thrift message held in a buffer, in place (the
 * buffer's position is not moved, nothing is copied): its header, and what a reply carries. One
 * reader for the server's outcome of a call and the client's. Strict binary and compact are read
 * without a protocol; for any other protocol (JSON) the in-place methods answer {@code null} and
 * the caller reads the message with a protocol over its own transport ({@code
 * FrameInputTransport}): this package depends on nothing else of the library, so that every package
 * may use it. Not part of the API.
 */
public final class MessageHeaders {

  /** What a reply carries. */
  public enum ReplyKind {
    /** A {@code REPLY} with the return value (field 0), or an empty result (a void method). */
    RESULT,
    /** A {@code REPLY} whose result field is an exception the IDL declares (field id above 0). */
    DECLARED_EXCEPTION,
    /** An {@code EXCEPTION} message: a {@code TApplicationException} other than the next. */
    APPLICATION_EXCEPTION,
    /** An {@code EXCEPTION} message with {@code TApplicationException.INTERNAL_ERROR}. */
    INTERNAL_ERROR,
    /** Not a readable reply. */
    UNREADABLE;

    /**
     * What a {@code REPLY} carries, from its result struct's first field: the return value is field
     * 0, a declared exception has the id the IDL gave it, a void method's result is empty.
     */
    public static ReplyKind ofResultField(TField first) {
      return first.type == TType.STOP || first.id == 0 ? RESULT : DECLARED_EXCEPTION;
    }
  }

  /** What {@link #seqId} returns when a message's sequence id cannot be read in place. */
  public static final long UNKNOWN_SEQ_ID = Long.MIN_VALUE;

  private MessageHeaders() {}

  /**
   * The message header of {@code message} (no length prefix, from position to limit), read in
   * place; {@code null} for another protocol than strict binary and compact, or a header cut short.
   */
  public static TMessage inPlace(ByteBuffer message) {
    InPlace h = InPlace.of(message);
    return h == null ? null : new TMessage(h.name(message), h.type, h.seqId);
  }

  /**
   * The method name in the message header of {@code message} (no length prefix, from position to
   * limit, which are left as they are), read in place; {@code null} for another protocol than
   * strict binary and compact, or a header cut short.
   */
  public static String methodName(ByteBuffer message) {
    ByteBuffer b = message.duplicate();
    InPlace h = InPlace.of(b);
    return h == null ? null : h.name(b);
  }

  /**
   * The method name in the message header at {@code bytes[offset..offset+length)}, read in place;
   * {@code null} for another protocol than strict binary and compact, or a header cut short.
   */
  public static String methodName(byte[] bytes, int offset, int length) {
    ByteBuffer b = ByteBuffer.wrap(bytes, offset, length);
    InPlace h = InPlace.of(b);
    return h == null ? null : h.name(b);
  }

  /**
   * The sequence id of a strict-binary or compact message, read in place (nothing copied); {@link
   * #UNKNOWN_SEQ_ID} for another protocol (JSON) or a header cut short.
   */
  public static long seqId(ByteBuffer message) {
    InPlace h = InPlace.of(message);
    return h == null ? UNKNOWN_SEQ_ID : h.seqId;
  }

  /**
   * The header at {@code message}'s position, when it is the strict-binary ({@code binary}) or
   * compact header of a message named {@code name} (ASCII) with sequence id {@code seqId}: its
   * length in bytes shifted left by 8, its message type in the low 8 bits. {@code -1} when it is
   * not, or cannot be told in place (another protocol, a header cut short, a non-ASCII name). Reads
   * in place and builds no {@code String}: for a client that knows the reply it waits for.
   */
  public static long expectedHeader(ByteBuffer message, boolean binary, String name, int seqId) {
    InPlace h = InPlace.of(message);
    if (h == null || h.binary != binary || h.seqId != seqId || h.nameLength != name.length()) {
      return -1;
    }
    for (int i = 0; i < h.nameLength; i++) {
      char c = name.charAt(i);
      if (c >= 0x80 || message.get(h.nameStart + i) != (byte) c) {
        return -1;
      }
    }
    return ((long) (h.end - message.position()) << 8) | (h.type & 0xff);
  }

  /**
   * What the reply in {@code reply} (no length prefix, from position to limit) carries, read in
   * place; {@code null} when only a protocol can tell ({@link #replyKind(TProtocol)}).
   */
  public static ReplyKind replyKindInPlace(ByteBuffer reply) {
    InPlace h = InPlace.of(reply);
    if (h != null && h.type == TMessageType.REPLY && h.end < reply.limit()) {
      // The first field header, in place: binary's is a type byte (0 = STOP) and an i16 id;
      // compact's a byte of id delta and type (0 = STOP), the id following as a zigzag varint when
      // the delta is 0. Field 0 is the return value; any other, a declared exception.
      int field = reply.get(h.end) & 0xff;
      if (field == 0) {
        return ReplyKind.RESULT;
      }
      if (h.binary) {
        if (h.end + 3 <= reply.limit()) {
          return reply.getShort(h.end + 1) == 0 ? ReplyKind.RESULT : ReplyKind.DECLARED_EXCEPTION;
        }
      } else if ((field >>> 4) != 0) {
        return ReplyKind.DECLARED_EXCEPTION; // a delta from 0: an id above 0
      } else if (h.end + 1 < reply.limit()) {
        return reply.get(h.end + 1) == 0 ? ReplyKind.RESULT : ReplyKind.DECLARED_EXCEPTION;
      }
    }
    return null;
  }

  /** What the reply {@code reader} is about to read carries; never throws. */
  public static ReplyKind replyKind(TProtocol reader) {
    try {
      TMessage message = reader.readMessageBegin();
      if (message.type == TMessageType.EXCEPTION) {
        return TApplicationException.readFrom(reader).getType()
                == TApplicationException.INTERNAL_ERROR
            ? ReplyKind.INTERNAL_ERROR
            : ReplyKind.APPLICATION_EXCEPTION;
      }
      reader.readStructBegin();
      return ReplyKind.ofResultField(reader.readFieldBegin());
    } catch (TException | RuntimeException unreadable) {
      return ReplyKind.UNREADABLE;
    }
  }

  /**
   * Where a strict-binary or compact header's parts lie in a buffer, read without a protocol or a
   * transport (the interceptors ask on every call); {@code null} from {@link #of} for any other
   * protocol or a header cut short, which the callers then parse with the protocol.
   */
  private static final class InPlace {
    boolean binary;
    byte type;
    int seqId;
    int nameStart;
    int nameLength;

    /** The index just past the header: a reply's result struct starts there. */
    int end;

    static InPlace of(ByteBuffer b) {
      int p = b.position();
      int limit = b.limit();
      if (limit - p < 2) {
        return null;
      }
      int b0 = b.get(p) & 0xff;
      int b1 = b.get(p + 1) & 0xff;
      InPlace h = new InPlace();
      if (b0 == 0x80 && b1 == 0x01) {
        if (limit - p < 12) {
          return null;
        }
        h.binary = true;
        h.type = b.get(p + 3);
        h.nameLength = b.getInt(p + 4);
        h.nameStart = p + 8;
        if (h.nameLength < 0 || h.nameLength > limit - h.nameStart - 4) {
          return null;
        }
        h.seqId = b.getInt(h.nameStart + h.nameLength);
        h.end = h.nameStart + h.nameLength + 4;
        return h;
      }
      if (b0 == 0x82 && (b1 & 0x1f) == 1) {
        h.type = (byte) ((b1 >>> 5) & 0x07);
        long seq = varint(b, p + 2, limit);
        if (seq < 0) {
          return null;
        }
        h.seqId = (int) (seq >>> 8);
        int at = p + 2 + (int) (seq & 0xff);
        long len = varint(b, at, limit);
        if (len < 0) {
          return null;
        }
        h.nameStart = at + (int) (len & 0xff);
        h.nameLength = (int) (len >>> 8);
        if (h.nameLength < 0 || h.nameLength > limit - h.nameStart) {
          return null;
        }
        h.end = h.nameStart + h.nameLength;
        return h;
      }
      return null;
    }

    String name(ByteBuffer b) {
      byte[] bytes = new byte[nameLength];
      b.get(nameStart, bytes, 0, nameLength);
      return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * A compact varint32 at {@code at}: its value shifted left by 8, and its length in bytes in the
     * low 8 bits; -1 if it is cut short or longer than five bytes.
     */
    private static long varint(ByteBuffer b, int at, int limit) {
      long value = 0;
      for (int i = 0; i < 5 && at + i < limit; i++) {
        int x = b.get(at + i) & 0xff;
        value |= (long) (x & 0x7f) << (7 * i);
        if ((x & 0x80) == 0) {
          return ((value & 0xffffffffL) << 8) | (i + 1);
        }
      }
      return -1;
    }
  }
}
