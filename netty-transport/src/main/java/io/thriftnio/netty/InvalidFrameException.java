package io.thriftnio.netty;

import io.netty.handler.codec.CorruptedFrameException;
import io.thriftnio.core.util.internal.FrameSizeException;
import org.apache.thrift.protocol.TMessage;

/**
 * Raised by {@code ThriftFrameDecoder} for a frame length that breaks the wire rules: not positive,
 * or above {@code maxFrameSize}. The connection cannot be resynchronised after it; the decoder
 * discards every later byte, and the handler that receives this exception in {@code
 * exceptionCaught} should close the connection ({@link ThriftServerHandler} and the clients of this
 * package do).
 *
 * <p>For an oversize frame whose Thrift message header could be read from the bytes already
 * received, {@link #header()} returns it, so that a server can answer the caller's sequence id with
 * a {@code TApplicationException} before closing.
 */
final class InvalidFrameException extends CorruptedFrameException {
  private static final long serialVersionUID = 1L;

  private final transient TMessage header;

  /**
   * @param cause the rule that was broken, with the length, the limit and the peer
   * @param header the oversize frame's message header, or {@code null} if it could not be read
   */
  InvalidFrameException(FrameSizeException cause, TMessage header) {
    super(cause.getMessage(), cause);
    this.header = header;
  }

  /** The rule that was broken, with the length, the limit and the peer. */
  @Override
  public FrameSizeException getCause() {
    return (FrameSizeException) super.getCause();
  }

  /**
   * The message header of the rejected frame, or {@code null} when it could not be read (a length
   * that is not positive, foreign bytes, or a header not yet received).
   */
  public TMessage header() {
    return header;
  }
}
