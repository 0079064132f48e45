package io.thriftnio.core.internal;

import io.thriftnio.core.util.internal.FrameOutputTransport;
import io.thriftnio.core.util.internal.FrameSizeException;
import java.net.SocketAddress;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.transport.TTransportException;

/**
 * The check of a frame's length against the limit, by the rules of {@link
 * io.thriftnio.core.util.internal.Framing}, for every codec and client transport; and the frame
 * builders whose writes past the limit fail the same way. Not an API.
 */
public final class FrameLength {

  /** A payload past the limit: the {@link FrameSizeException} the API documents. */
  public static final FrameOutputTransport.Overflow OVERFLOW =
      (size, max) -> new FrameSizeException(size, max, null);

  private FrameLength() {}

  /**
   * Checks a decoded frame length against the limit.
   *
   * @param length the signed length read from the wire
   * @param maxFrameSize the largest payload accepted, in bytes
   * @param peer the remote address for the error message, or {@code null} if unknown
   * @return {@code length}, when it is within {@code 1..maxFrameSize}
   * @throws FrameSizeException if {@code length <= 0} or {@code length > maxFrameSize}
   */
  public static int check(int length, int maxFrameSize, SocketAddress peer)
      throws FrameSizeException {
    if (length <= 0 || length > maxFrameSize) {
      throw new FrameSizeException(length, maxFrameSize, peer);
    }
    return length;
  }

  /**
   * A frame builder with a 256-byte initial capacity whose writes past {@code configuration}'s
   * {@code maxFrameSize} fail with {@link FrameSizeException}.
   *
   * @throws TTransportException never in practice; declared by the superclass constructor
   */
  public static FrameOutputTransport output(TConfiguration configuration)
      throws TTransportException {
    return new FrameOutputTransport(configuration, OVERFLOW);
  }

  /**
   * As {@link #output(TConfiguration)}, starting with {@code initialCapacity} payload bytes.
   *
   * @throws TTransportException never in practice; declared by the superclass constructor
   */
  public static FrameOutputTransport output(TConfiguration configuration, int initialCapacity)
      throws TTransportException {
    return new FrameOutputTransport(configuration, initialCapacity, OVERFLOW);
  }
}
