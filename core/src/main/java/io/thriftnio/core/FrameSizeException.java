package io.thriftnio.core;

import java.net.SocketAddress;
import org.apache.thrift.transport.TTransportException;

/**
 * A frame length that breaks the {@linkplain Framing wire rules}: not positive, or above the
 * configured {@code maxFrameSize}. The message carries the length, the limit and the peer.
 */
public final class FrameSizeException extends TTransportException {
  private static final long serialVersionUID = 1L;

  private final int length;
  private final int maxFrameSize;
  private final transient SocketAddress peer;

  /**
   * @param length the length read from the wire
   * @param maxFrameSize the configured limit, in bytes
   * @param peer the remote address, or {@code null} if unknown
   */
  public FrameSizeException(int length, int maxFrameSize, SocketAddress peer) {
    super(CORRUPTED_DATA, message(length, maxFrameSize, peer));
    this.length = length;
    this.maxFrameSize = maxFrameSize;
    this.peer = peer;
  }

  private static String message(int length, int maxFrameSize, SocketAddress peer) {
    StringBuilder sb = new StringBuilder("frame length ").append(length);
    if (peer != null) {
      sb.append(" from ").append(peer);
    }
    if (length > maxFrameSize) {
      sb.append(" exceeds maxFrameSize ").append(maxFrameSize);
    } else {
      sb.append(" is invalid (expected: 1..").append(maxFrameSize).append(')');
    }
    String foreign = Framing.describeForeignBytes(length);
    if (foreign != null) {
      sb.append("; the bytes look like ").append(foreign);
    }
    return sb.toString();
  }

  /** The length read from the wire. */
  public int length() {
    return length;
  }

  /** The configured limit, in bytes. */
  public int maxFrameSize() {
    return maxFrameSize;
  }

  /** The remote address, or {@code null} if unknown. */
  public SocketAddress peer() {
    return peer;
  }
}
