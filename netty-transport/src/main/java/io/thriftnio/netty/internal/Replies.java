package io.thriftnio.netty.internal;

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

/** Error replies the transport writes itself, and a look at a reply's type. Not part of the API. */
public final class Replies {
  private static final int BINARY_VERSION_BYTE = 0x80;
  private static final int COMPACT_PROTOCOL_ID = 0x82;

  private Replies() {}

  /**
   * Reads the message header of a request payload.
   *
   * @return the header, or {@code null} if it cannot be read
   */
  public static TMessage readHeader(ByteBuffer payload, TProtocolFactory input, int maxFrameSize) {
    try {
      TConfiguration configuration = new TConfiguration(maxFrameSize, maxFrameSize, 64);
      TProtocol in = input.getProtocol(FrameInputTransport.of(configuration, payload));
      return in.readMessageBegin();
    } catch (TException | RuntimeException unreadable) {
      return null;
    }
  }

  /**
   * Encodes a {@link TApplicationException} reply to {@code request}.
   *
   * @return the whole frame, length prefix included, or {@code null} for a oneway request (no reply
   *     is possible) or when encoding fails
   */
  public static ByteBuffer applicationException(
      TMessage request, int type, String message, TProtocolFactory output, int maxFrameSize) {
    if (request == null || request.type == TMessageType.ONEWAY) {
      return null;
    }
    try {
      FrameOutputTransport frame =
          new FrameOutputTransport(new TConfiguration(maxFrameSize, maxFrameSize, 64));
      TProtocol out = output.getProtocol(frame);
      out.writeMessageBegin(new TMessage(request.name, TMessageType.EXCEPTION, request.seqid));
      new TApplicationException(type, message).write(out);
      out.writeMessageEnd();
      return frame.toFrame();
    } catch (TException | RuntimeException e) {
      return null;
    }
  }

  /**
   * Whether a reply frame (length prefix included) is an {@code EXCEPTION} message, i.e. a {@code
   * TApplicationException}. Binary (strict) and compact headers are recognised from their first
   * bytes; other protocols are parsed.
   */
  public static boolean isException(ByteBuffer frame, TProtocolFactory output, int maxFrameSize) {
    int p = frame.position() + 4;
    if (frame.limit() - p < 4) {
      return false;
    }
    int b0 = frame.get(p) & 0xff;
    if (b0 == BINARY_VERSION_BYTE) {
      return (frame.get(p + 3) & 0x07) == TMessageType.EXCEPTION;
    }
    if (b0 == COMPACT_PROTOCOL_ID) {
      return ((frame.get(p + 1) >> 5) & 0x07) == TMessageType.EXCEPTION;
    }
    ByteBuffer payload = frame.duplicate();
    payload.position(p);
    TMessage header = readHeader(payload, output, maxFrameSize);
    return header != null && header.type == TMessageType.EXCEPTION;
  }
}
