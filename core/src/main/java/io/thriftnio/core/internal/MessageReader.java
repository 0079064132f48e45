package io.thriftnio.core.internal;

import io.thriftnio.core.util.internal.FrameInputTransport;
import io.thriftnio.core.util.internal.MessageHeaders;
import io.thriftnio.core.util.internal.MessageHeaders.ReplyKind;
import java.nio.ByteBuffer;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TTransportException;

/**
 * {@link MessageHeaders} for any protocol: what it cannot read in place is read with the protocol
 * over a {@link FrameInputTransport}. For the client call path and the pools; the server's call
 * path in {@code io.thriftnio.core} does the same on its own, since the API package uses nothing
 * here. Not part of the API.
 */
public final class MessageReader {

  /**
   * For messages a frame limit has already bounded: only the bytes present are read, whatever a
   * length inside them claims; the recursion limit stays.
   */
  public static final TConfiguration BOUNDED_BY_FRAME =
      new TConfiguration(
          Integer.MAX_VALUE, Integer.MAX_VALUE, TConfiguration.DEFAULT_RECURSION_DEPTH);

  private MessageReader() {}

  /**
   * The message header of {@code message} (no length prefix, from position to limit).
   *
   * @throws TException if the bytes hold no readable header in {@code protocol}
   */
  public static TMessage header(
      ByteBuffer message, TProtocolFactory protocol, TConfiguration configuration)
      throws TException {
    TMessage inPlace = MessageHeaders.inPlace(message);
    return inPlace != null
        ? inPlace
        : protocol
            .getProtocol(FrameInputTransport.of(configuration, message.duplicate()))
            .readMessageBegin();
  }

  /**
   * The {@link TApplicationException} the reply in {@code reply} (no length prefix, from position
   * to limit; not moved) carries when it is an {@code EXCEPTION} message: the type, code and
   * message a generated client reads from it; {@code null} for any other message, or one that
   * cannot be read. A strict-binary or compact {@code REPLY} is told in place, without a protocol.
   */
  public static TApplicationException applicationException(
      ByteBuffer reply, TProtocolFactory protocol, TConfiguration configuration) {
    TMessage inPlace = MessageHeaders.inPlace(reply);
    if (inPlace != null && inPlace.type != TMessageType.EXCEPTION) {
      return null;
    }
    try {
      TProtocol in = protocol.getProtocol(FrameInputTransport.of(configuration, reply.duplicate()));
      return in.readMessageBegin().type == TMessageType.EXCEPTION
          ? TApplicationException.readFrom(in)
          : null;
    } catch (TException | RuntimeException unreadable) {
      return null;
    }
  }

  /** What the reply in {@code reply} (no length prefix, from position to limit) carries. */
  public static ReplyKind replyKind(
      ByteBuffer reply, TProtocolFactory protocol, TConfiguration configuration) {
    ReplyKind inPlace = MessageHeaders.replyKindInPlace(reply);
    if (inPlace != null) {
      return inPlace;
    }
    try {
      return MessageHeaders.replyKind(
          protocol.getProtocol(FrameInputTransport.of(configuration, reply)));
    } catch (TTransportException | RuntimeException unreadable) {
      return ReplyKind.UNREADABLE; // larger than the configuration's maxMessageSize, say
    }
  }
}
