package io.thriftnio.core.internal;

import io.thriftnio.core.FrameSizeException;
import java.net.SocketAddress;

/**
 * The check of a frame's length against the limit, by the rules of {@link
 * io.thriftnio.core.util.internal.Framing}, for every codec and client transport. Not an API.
 */
public final class FrameLength {

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
}
