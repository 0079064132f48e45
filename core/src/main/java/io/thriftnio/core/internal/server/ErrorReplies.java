package io.thriftnio.core.internal.server;

import io.thriftnio.core.internal.FrameLength;
import io.thriftnio.core.util.internal.FrameInputTransport;
import io.thriftnio.core.util.internal.FrameOutputTransport;
import java.nio.ByteBuffer;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replies a server writes itself, without running the processor: an overload refusal, an answer to
 * a frame above the size limit. Not part of the API.
 */
public final class ErrorReplies {
  private static final Logger log = LoggerFactory.getLogger(ErrorReplies.class);

  private ErrorReplies() {}

  /**
   * Reads the message header of a request payload.
   *
   * @param payload the request payload (no length prefix), from position to limit; not changed
   * @return the header, or {@code null} if it cannot be read
   */
  public static TMessage readHeader(ByteBuffer payload, TProtocolFactory input, int maxFrameSize) {
    try {
      TProtocol in =
          input.getProtocol(FrameInputTransport.of(configuration(maxFrameSize), payload));
      return in.readMessageBegin();
    } catch (TException | RuntimeException unreadable) {
      return null; // the caller closes the connection: there is no sequence id to answer
    }
  }

  /**
   * Encodes a {@link TApplicationException} reply to {@code request}.
   *
   * @param request the request's header
   * @param type a {@link TApplicationException} type, e.g. {@code INTERNAL_ERROR}
   * @param message the exception's message
   * @param output the protocol replies are written with
   * @param maxFrameSize the largest payload, in bytes
   * @return the whole frame, length prefix included, or {@code null} for a oneway request (nobody
   *     waits for a reply) or when the reply cannot be encoded (logged at WARN with the request)
   */
  public static ByteBuffer applicationException(
      TMessage request, int type, String message, TProtocolFactory output, int maxFrameSize) {
    if (request.type == TMessageType.ONEWAY) {
      return null;
    }
    try {
      FrameOutputTransport frame = FrameLength.output(configuration(maxFrameSize));
      TProtocol out = output.getProtocol(frame);
      out.writeMessageBegin(new TMessage(request.name, TMessageType.EXCEPTION, request.seqid));
      new TApplicationException(type, message).write(out);
      out.writeMessageEnd();
      return frame.toFrame();
    } catch (TException | RuntimeException unencodable) {
      // A name too long for maxFrameSize, say: the caller closes without a reply instead.
      log.warn(
          "Cannot encode the error reply to {} seqid {} ({}): {}",
          request.name,
          request.seqid,
          message,
          unencodable.toString());
      return null;
    }
  }

  private static TConfiguration configuration(int maxFrameSize) {
    return new TConfiguration(maxFrameSize, maxFrameSize, TConfiguration.DEFAULT_RECURSION_DEPTH);
  }
}
