package io.thriftnio.core.internal.server;

import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.util.internal.FrameInputTransport;
import io.thriftnio.core.util.internal.FrameOutputTransport;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.MessageHeaders;
import java.nio.ByteBuffer;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
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
    TMessage inPlace = MessageHeaders.inPlace(payload);
    return inPlace != null
        ? inPlace
        : protocol
            .getProtocol(FrameInputTransport.of(configuration, payload.duplicate()))
            .readMessageBegin();
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
    MessageHeaders.ReplyKind kind = MessageHeaders.replyKindInPlace(reply);
    if (kind == null) {
      try {
        kind =
            MessageHeaders.replyKind(
                protocol.getProtocol(FrameInputTransport.of(configuration, reply)));
      } catch (TTransportException | RuntimeException unreadable) {
        kind = MessageHeaders.ReplyKind.UNREADABLE; // larger than maxMessageSize, say
      }
    }
    switch (kind) {
      case RESULT:
        return CallOutcome.SUCCESS;
      case DECLARED_EXCEPTION:
        return CallOutcome.DECLARED_EXCEPTION;
      case APPLICATION_EXCEPTION:
        return CallOutcome.APPLICATION_EXCEPTION;
      default:
        // INTERNAL_ERROR, or our own output unreadable: only if the processor wrote garbage.
        return CallOutcome.UNDECLARED_FAILURE;
    }
  }

  /**
   * The {@link TApplicationException} an {@code EXCEPTION} reply carries, read back for {@link
   * ServerCallContext#failure()}; {@code null} if it cannot be read (only if the processor wrote
   * garbage). Read only for interceptors, on a failed call.
   */
  static TApplicationException applicationException(
      ByteBuffer reply, TProtocolFactory protocol, TConfiguration configuration) {
    try {
      TProtocol in = protocol.getProtocol(FrameInputTransport.of(configuration, reply.duplicate()));
      in.readMessageBegin();
      return TApplicationException.readFrom(in);
    } catch (TException | RuntimeException unreadable) {
      return null;
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
