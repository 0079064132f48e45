package io.thriftnio.grizzly.internal;

import io.thriftnio.core.FrameInputTransport;
import io.thriftnio.core.FrameOutputTransport;
import java.nio.ByteBuffer;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;

/** Replies this transport produces itself, without running the processor. */
public final class ErrorReplies {
  private ErrorReplies() {}

  /**
   * A {@code TApplicationException(INTERNAL_ERROR)} reply to a request, with its sequence id.
   *
   * @param request the request payload (no length prefix); read, not changed
   * @param in decodes the request header
   * @param out encodes the reply
   * @param maxFrameSize the frame limit, for the transports' configuration
   * @param message the exception message
   * @return the reply frame (prefix included), or {@code null} for a oneway request
   * @throws TException if the request header cannot be read
   */
  public static ByteBuffer internalError(
      ByteBuffer request,
      TProtocolFactory in,
      TProtocolFactory out,
      int maxFrameSize,
      String message)
      throws TException {
    TConfiguration configuration =
        new TConfiguration(maxFrameSize, maxFrameSize, TConfiguration.DEFAULT_RECURSION_DEPTH);
    TMessage header =
        in.getProtocol(FrameInputTransport.of(configuration, request)).readMessageBegin();
    if (header.type == TMessageType.ONEWAY) {
      return null;
    }
    FrameOutputTransport output = new FrameOutputTransport(configuration);
    TProtocol writer = out.getProtocol(output);
    writer.writeMessageBegin(new TMessage(header.name, TMessageType.EXCEPTION, header.seqid));
    new TApplicationException(
            TApplicationException.INTERNAL_ERROR, message + " (" + header.name + ")")
        .write(writer);
    writer.writeMessageEnd();
    return output.toFrame();
  }

  /**
   * A {@code TApplicationException(PROTOCOL_ERROR)} reply to a request that was not read, from its
   * header alone (a frame above the size limit).
   *
   * @param header the request's message header
   * @param out encodes the reply
   * @param maxFrameSize the frame limit, for the transport's configuration
   * @param message the exception message
   * @return the reply frame (prefix included), or {@code null} for a oneway request (nobody waits
   *     for a reply) or if the reply cannot be encoded
   */
  public static ByteBuffer protocolError(
      TMessage header, TProtocolFactory out, int maxFrameSize, String message) {
    if (header.type == TMessageType.ONEWAY) {
      return null;
    }
    try {
      FrameOutputTransport output =
          new FrameOutputTransport(
              new TConfiguration(
                  maxFrameSize, maxFrameSize, TConfiguration.DEFAULT_RECURSION_DEPTH));
      TProtocol writer = out.getProtocol(output);
      writer.writeMessageBegin(new TMessage(header.name, TMessageType.EXCEPTION, header.seqid));
      new TApplicationException(TApplicationException.PROTOCOL_ERROR, message).write(writer);
      writer.writeMessageEnd();
      return output.toFrame();
    } catch (TException | RuntimeException unencodable) {
      // A name too long for maxFrameSize, say: the caller closes without a reply instead.
      return null;
    }
  }

  /**
   * Whether a response frame is a {@code TApplicationException} of type {@code INTERNAL_ERROR} or
   * {@code PROTOCOL_ERROR}: a failed call, for {@code ServerStats.failedCalls}. Never throws: an
   * unreadable frame counts as not failed.
   *
   * @param frame the response frame, length prefix included; not changed
   * @param out the protocol the frame was written with
   * @param maxFrameSize the frame limit, for the transport's configuration
   * @return whether the call failed
   */
  public static boolean isFailedCall(ByteBuffer frame, TProtocolFactory out, int maxFrameSize) {
    try {
      ByteBuffer payload = frame.duplicate();
      payload.position(payload.position() + 4);
      TConfiguration configuration =
          new TConfiguration(maxFrameSize, maxFrameSize, TConfiguration.DEFAULT_RECURSION_DEPTH);
      TProtocol reader = out.getProtocol(FrameInputTransport.of(configuration, payload));
      if (reader.readMessageBegin().type != TMessageType.EXCEPTION) {
        return false;
      }
      int type = TApplicationException.readFrom(reader).getType();
      return type == TApplicationException.INTERNAL_ERROR
          || type == TApplicationException.PROTOCOL_ERROR;
    } catch (TException | RuntimeException unreadable) {
      // Only used for counting; the frame is sent as it is either way.
      return false;
    }
  }
}
