package io.thriftnio.core.internal;

import io.thriftnio.core.FrameInputTransport;
import java.nio.ByteBuffer;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TField;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.protocol.TType;

/**
 * Reads what the call paths need from a whole Thrift message held in a buffer, in place (the
 * buffer's position is not moved, nothing is copied): its header, and what a reply carries. One
 * reader for the server's outcome of a call and the client's. Not part of the API.
 */
public final class MessageReader {

  /**
   * For messages a frame limit has already bounded: only the bytes present are read, whatever a
   * length inside them claims; the recursion limit stays.
   */
  public static final TConfiguration BOUNDED_BY_FRAME =
      new TConfiguration(
          Integer.MAX_VALUE, Integer.MAX_VALUE, TConfiguration.DEFAULT_RECURSION_DEPTH);

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

  private MessageReader() {}

  /**
   * The message header of {@code message} (no length prefix, from position to limit).
   *
   * @throws TException if the bytes hold no readable header in {@code protocol}
   */
  public static TMessage header(
      ByteBuffer message, TProtocolFactory protocol, TConfiguration configuration)
      throws TException {
    return protocol.getProtocol(FrameInputTransport.of(configuration, message)).readMessageBegin();
  }

  /** What the reply in {@code reply} (no length prefix, from position to limit) carries. */
  public static ReplyKind replyKind(
      ByteBuffer reply, TProtocolFactory protocol, TConfiguration configuration) {
    try {
      TProtocol reader = protocol.getProtocol(FrameInputTransport.of(configuration, reply));
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
}
