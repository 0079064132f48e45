package io.thriftnio.core;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What {@link ServerCallContext#setResponseHeader} accepts: what every kind that carries headers
 * can send, and every client of this library can read back. One rule for every wire kind, checked
 * when the header is set (where the mistake is), so that a handler behaves the same whichever kind
 * its caller picked.
 *
 * <ul>
 *   <li>a name is an HTTP token (RFC 9110: letters, digits and {@code !#$%&'*+-.^_`|~}), and not
 *       one of the fields the server writes itself ({@code Content-Length}, {@code Content-Type},
 *       {@code Connection}, {@code Transfer-Encoding}, in any case);
 *   <li>a value is printable ASCII, spaces and tabs: no CR or LF (which would split an HTTP head),
 *       no other control character;
 *   <li>at most {@value #MAX_HEADERS} headers and {@value #MAX_BYTES} bytes of names and values:
 *       the bounds the THeader decoder and the HTTP parser enforce on what they read.
 * </ul>
 */
final class ResponseHeaderRules {

  /** The decoder's bound on a frame's info headers ({@code THeaderSection.MAX_INFO_HEADERS}). */
  static final int MAX_HEADERS = 100;

  /**
   * The decoder's bound on their keys and values ({@code THeaderSection.MAX_INFO_HEADER_BYTES}).
   */
  static final int MAX_BYTES = 65_536;

  private static final Set<String> OWNED =
      Set.of("content-length", "content-type", "connection", "transfer-encoding");

  private static final String TOKEN_CHARS = "!#$%&'*+-.^_`|~";

  private ResponseHeaderRules() {}

  /**
   * Checks one header about to be set next to {@code current}.
   *
   * @param value {@code null} for a removal, which only needs a valid name
   * @throws IllegalArgumentException naming what is wrong, with the numbers
   */
  static void check(String name, String value, Map<String, String> current) {
    Objects.requireNonNull(name, "name");
    if (!isToken(name)) {
      throw new IllegalArgumentException(
          "name: "
              + quote(name)
              + " (expected: an HTTP token: letters, digits and "
              + TOKEN_CHARS
              + ")");
    }
    if (OWNED.contains(name.toLowerCase(Locale.ROOT))) {
      throw new IllegalArgumentException(
          "name: "
              + quote(name)
              + " (expected: none of Content-Length, Content-Type, Connection, Transfer-Encoding,"
              + " which the server writes itself)");
    }
    if (value == null) {
      return;
    }
    if (!isFieldValue(value)) {
      throw new IllegalArgumentException(
          "value of "
              + name
              + ": "
              + quote(value)
              + " (expected: printable ASCII, spaces and tabs; no CR, LF or other control"
              + " character)");
    }
    String old = current.get(name);
    int count = current.size() + (old == null ? 1 : 0);
    if (count > MAX_HEADERS) {
      throw new IllegalArgumentException(
          "response headers: "
              + count
              + " with "
              + name
              + " (expected: <= "
              + MAX_HEADERS
              + ", what THeader and HTTP peers read)");
    }
    long bytes = name.length() + value.length() - (old == null ? 0 : name.length() + old.length());
    for (Map.Entry<String, String> e : current.entrySet()) {
      bytes += e.getKey().length() + e.getValue().length();
    }
    if (bytes > MAX_BYTES) {
      throw new IllegalArgumentException(
          "response headers: "
              + bytes
              + " bytes of names and values with "
              + name
              + " (expected: <= "
              + MAX_BYTES
              + ", what THeader and HTTP peers read)");
    }
  }

  private static boolean isToken(String name) {
    if (name.isEmpty()) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || TOKEN_CHARS.indexOf(c) >= 0;
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  private static boolean isFieldValue(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if ((c < 0x20 && c != '\t') || c > 0x7e) {
        return false;
      }
    }
    return true;
  }

  /** {@code "a\r\nb"}: the string quoted, control and non-ASCII characters escaped, cut at 64. */
  private static String quote(String s) {
    StringBuilder sb = new StringBuilder(s.length() + 8).append('"');
    int shown = Math.min(s.length(), 64);
    for (int i = 0; i < shown; i++) {
      char c = s.charAt(i);
      if (c == '\r') {
        sb.append("\\r");
      } else if (c == '\n') {
        sb.append("\\n");
      } else if (c == '\t') {
        sb.append("\\t");
      } else if (c == '"' || c == '\\') {
        sb.append('\\').append(c);
      } else if (c < 0x20 || c > 0x7e) {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    if (shown < s.length()) {
      sb.append("...(").append(s.length()).append(" chars)");
    }
    return sb.append('"').toString();
  }
}
