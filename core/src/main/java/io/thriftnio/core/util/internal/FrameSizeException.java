package io.thriftnio.core.util.internal;

import java.net.SocketAddress;
import org.apache.thrift.transport.TTransportException;

/**
 * A frame length that breaks the wire rules of Thrift's framed transport (a signed 4-byte
 * big-endian length that does not count itself): not positive, or above the configured {@code
 * maxFrameSize}. The message carries the length, the limit and the peer.
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
    this(message(length, maxFrameSize, peer), length, maxFrameSize, peer);
  }

  private FrameSizeException(String message, int length, int maxFrameSize, SocketAddress peer) {
    super(CORRUPTED_DATA, message);
    this.length = length;
    this.maxFrameSize = maxFrameSize;
    this.peer = peer;
  }

  /**
   * A request this side was about to send, over the limit: nothing was sent. The message names the
   * call: {@code request echo to host/10.0.0.7:9090: frame length 20000000 exceeds maxFrameSize
   * 16384000; not sent}.
   *
   * @param length the request's length, in bytes (so far, for one still being written)
   * @param maxFrameSize the configured limit, in bytes
   * @param peer the server, or {@code null} if unknown
   * @param method the request's method, or {@code null} if unknown
   * @return the exception
   */
  public static FrameSizeException ofRequest(
      int length, int maxFrameSize, SocketAddress peer, String method) {
    String message =
        "request"
            + (method != null ? " " + method : "")
            + (peer != null ? " to " + peer : "")
            + ": frame length "
            + length
            + " exceeds maxFrameSize "
            + maxFrameSize
            + "; not sent";
    return new FrameSizeException(message, length, maxFrameSize, peer);
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
