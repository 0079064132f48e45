package io.thriftnio.core;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TField;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolException;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.protocol.TProtocolUtil;
import org.apache.thrift.protocol.TType;
import org.apache.thrift.transport.TTransportException;

/**
 * The messages {@link ProcessorInvoker} reads and writes besides the processor's: a message's type,
 * read in place for strict binary ({@code 80 01 00 type}) and compact ({@code 82, type << 5 |
 * version}) so that no header is parsed twice per call on the common protocols, and parsed for the
 * others; and the {@link TApplicationException} that answers a call the processor could not.
 */
final class CallMessages {

  /** {@link #type} of a message whose header cannot be read. */
  static final int UNREADABLE = -1;

  private CallMessages() {}

  /**
   * The message type of {@code payload} (a message, no length prefix, from position to limit), or
   * {@link #UNREADABLE}; the payload's position is not moved.
   */
  static int type(ByteBuffer payload, TProtocolFactory protocol, TConfiguration configuration) {
    int p = payload.position();
    if (payload.remaining() >= 4) {
      int b0 = payload.get(p) & 0xff;
      int b1 = payload.get(p + 1) & 0xff;
      if (b0 == 0x80 && b1 == 0x01) {
        return payload.get(p + 3) & 0xff;
      }
      if (b0 == 0x82) {
        return (b1 >>> 5) & 0x07;
      }
    }
    try {
      return read(payload.duplicate(), protocol, configuration).type & 0xff;
    } catch (TException | RuntimeException unreadable) {
      return UNREADABLE;
    }
  }

  /** Parses the header of {@code payload}; the payload's position is not moved. */
  static TMessage read(ByteBuffer payload, TProtocolFactory protocol, TConfiguration configuration)
      throws TException {
    return protocol.getProtocol(FrameInputTransport.of(configuration, payload)).readMessageBegin();
  }

  /**
   * The header of {@code payload}, read in place for strict binary and compact (no protocol, no
   * transport: the interceptors' context asks for it on every call) and parsed for the others.
   */
  static TMessage header(
      ByteBuffer payload, TProtocolFactory protocol, TConfiguration configuration)
      throws TException {
    InPlace h = InPlace.of(payload);
    if (h != null && h.seqIdKnown) {
      return new TMessage(h.name(payload), h.type, h.seqId);
    }
    return read(payload.duplicate(), protocol, configuration);
  }

  /**
   * Where a strict-binary or compact header's parts lie in a buffer; {@code null} from {@link #of}
   * for any other protocol or a header cut short, which the caller then parses the slow way.
   */
  private static final class InPlace {
    byte type;
    int seqId;
    boolean seqIdKnown;
    int nameStart;
    int nameLength;

    /** The index just past the header: the result struct's first field header. */
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
        h.type = b.get(p + 3);
        h.nameLength = b.getInt(p + 4);
        h.nameStart = p + 8;
        if (h.nameLength < 0 || h.nameLength > limit - h.nameStart - 4) {
          return null;
        }
        h.seqId = b.getInt(h.nameStart + h.nameLength);
        h.seqIdKnown = true;
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
        h.seqIdKnown = true;
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
     * A compact varint32 at {@code at}: its value in the high 32 bits' place (shifted left by 8)
     * and its length in bytes in the low 8; -1 if it is cut short or longer than five bytes.
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

  /**
   * Whether the arguments of the request in {@code payload} cannot be skipped field by field.
   *
   * <p>libthrift before 0.25 lets some hostile inputs escape its decoders as runtime exceptions or
   * a stack overflow instead of a {@code TProtocolException}: 0.23 reads a negative string length
   * into an {@code IndexOutOfBoundsException}, an overlong compact varint past its array, and skips
   * unknown fields without a depth limit. Once the JIT has compiled the decoder such an exception
   * often has no stack trace to say where it came from, so the request is read again: if this
   * fails, it was malformed, and the handler was never reached.
   */
  static boolean argumentsUnreadable(
      ByteBuffer payload, TProtocolFactory protocol, TConfiguration configuration) {
    try {
      TProtocol reader = protocol.getProtocol(FrameInputTransport.of(configuration, payload));
      reader.readMessageBegin();
      TProtocolUtil.skip(reader, TType.STRUCT);
      reader.readMessageEnd();
      return false;
    } catch (TException | RuntimeException | StackOverflowError unreadable) {
      return true;
    }
  }

  /**
   * The {@link TApplicationException} that answers {@code request}, whose processor failed with
   * {@code cause}: {@code INTERNAL_ERROR} for a handler's failure or a reply above {@code
   * maxFrameSize}, {@code PROTOCOL_ERROR} for a malformed request.
   */
  static TApplicationException failure(
      TMessage request,
      Throwable cause,
      ByteBuffer payload,
      TProtocolFactory protocol,
      TConfiguration configuration) {
    if (cause instanceof FrameSizeException) {
      // Only the output transport throws it here: the response outgrew maxFrameSize.
      return new TApplicationException(
          TApplicationException.INTERNAL_ERROR,
          "Response to "
              + request.name
              + " exceeds maxFrameSize "
              + configuration.getMaxFrameSize());
    }
    if (cause instanceof TProtocolException || cause instanceof TTransportException) {
      return new TApplicationException(
          TApplicationException.PROTOCOL_ERROR,
          "Malformed request for " + request.name + ": " + cause.getMessage());
    }
    if ((cause instanceof RuntimeException || cause instanceof StackOverflowError)
        && argumentsUnreadable(payload, protocol, configuration)) {
      return new TApplicationException(
          TApplicationException.PROTOCOL_ERROR,
          "Malformed request for " + request.name + ": unreadable arguments (" + cause + ")");
    }
    return new TApplicationException(
        TApplicationException.INTERNAL_ERROR, "Internal error processing " + request.name);
  }

  /**
   * How the call that produced {@code reply} (a reply message, no length prefix) ended: an {@code
   * EXCEPTION} message is an application exception, or an undeclared failure for {@code
   * INTERNAL_ERROR} (what libthrift's processors answer when a handler throws an undeclared
   * exception); a {@code REPLY} whose result struct starts with field 0 (the return value), or is
   * empty (a void method), is a success, any other field a declared exception. Read only for
   * interceptors.
   */
  static CallOutcome outcome(
      ByteBuffer reply, TProtocolFactory protocol, TConfiguration configuration) {
    InPlace h = InPlace.of(reply);
    if (h != null && h.type == TMessageType.REPLY && h.end < reply.limit()) {
      // The first field header, in place: binary's is a type byte (0 = STOP) and an i16 id;
      // compact's a byte of id delta and type (0 = STOP), the id following as a zigzag varint when
      // the delta is 0. Field 0 is the return value; any other, a declared exception.
      int field = reply.get(h.end) & 0xff;
      if (field == 0) {
        return CallOutcome.SUCCESS;
      }
      boolean binary = (reply.get(reply.position()) & 0xff) == 0x80;
      if (binary) {
        if (h.end + 3 <= reply.limit()) {
          return reply.getShort(h.end + 1) == 0
              ? CallOutcome.SUCCESS
              : CallOutcome.DECLARED_EXCEPTION;
        }
      } else if ((field >>> 4) != 0) {
        return CallOutcome.DECLARED_EXCEPTION; // a delta from 0: an id above 0
      } else if (h.end + 1 < reply.limit()) {
        return reply.get(h.end + 1) == 0 ? CallOutcome.SUCCESS : CallOutcome.DECLARED_EXCEPTION;
      }
    }
    try {
      TProtocol reader = protocol.getProtocol(FrameInputTransport.of(configuration, reply));
      TMessage message = reader.readMessageBegin();
      if (message.type == TMessageType.EXCEPTION) {
        TApplicationException e = TApplicationException.readFrom(reader);
        return e.getType() == TApplicationException.INTERNAL_ERROR
            ? CallOutcome.UNDECLARED_FAILURE
            : CallOutcome.APPLICATION_EXCEPTION;
      }
      reader.readStructBegin();
      TField first = reader.readFieldBegin();
      return first.type == TType.STOP || first.id == 0
          ? CallOutcome.SUCCESS
          : CallOutcome.DECLARED_EXCEPTION;
    } catch (TException | RuntimeException unreadable) {
      // Our own output, written by the processor: unreadable only if the processor wrote garbage.
      return CallOutcome.UNDECLARED_FAILURE;
    }
  }

  /** Writes {@code failure} as the reply to {@code request} and finishes the frame. */
  static ByteBuffer exceptionReply(
      TMessage request, TApplicationException failure, TProtocol out, FrameOutputTransport output)
      throws TException {
    output.reset();
    out.writeMessageBegin(new TMessage(request.name, TMessageType.EXCEPTION, request.seqid));
    failure.write(out);
    out.writeMessageEnd();
    return output.toFrame();
  }
}
