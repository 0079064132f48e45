package io.thriftnio.core.wire;

import io.thriftnio.core.WireKind;
import java.util.Set;

/**
 * What a server's refusal adds when the bytes show a peer the server was not built for: the setting
 * that would serve it. Only where the fix is certain; other foreign bytes (SSH, Redis, a TLS
 * ClientHello) are named without advice.
 */
final class WireHints {
  private WireHints() {}

  /**
   * {@code ; to serve HTTP on this port, build the server with wireKinds(..., HTTP)} when {@code
   * firstFour} (big-endian) starts an HTTP request line ({@code POST}, {@code GET }) and the server
   * does not accept HTTP; else the empty string.
   */
  static String forFirstBytes(int firstFour, Set<WireKind> accepted) {
    if (accepted.contains(WireKind.HTTP) || !isMethodToken(firstFour)) {
      return "";
    }
    return "; to serve HTTP on this port, build the server with wireKinds(..., HTTP)";
  }

  /** Four bytes of an upper-case method name, or a shorter one and its space: {@code GET }. */
  private static boolean isMethodToken(int firstFour) {
    for (int shift = 24; shift >= 0; shift -= 8) {
      int b = (firstFour >>> shift) & 0xff;
      boolean letter = b >= 'A' && b <= 'Z';
      if (!letter && !(b == ' ' && shift < 24)) {
        return false;
      }
    }
    return true;
  }
}
