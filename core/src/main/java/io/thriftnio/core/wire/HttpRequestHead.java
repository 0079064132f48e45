package io.thriftnio.core.wire;

import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The head every HTTP client of this library posts before a Thrift message.
 *
 * <pre>
 * POST /path HTTP/1.1\r\n
 * Host: example.com:9090\r\n
 * Content-Type: application/x-thrift\r\n
 * Accept: application/x-thrift\r\n
 * Content-Length: 21\r\n
 * \r\n
 * 80 01 00 01 ...            the call, one Thrift message
 * </pre>
 */
final class HttpRequestHead {

  private static final byte[] NO_BYTES = new byte[0];

  private static final byte[] CONTENT_LENGTH =
      "Content-Length: ".getBytes(StandardCharsets.ISO_8859_1);

  private final byte[] headStart;

  /**
   * @param address the server, as the caller named it (its name goes into {@code Host})
   * @param path the path calls are posted to
   */
  HttpRequestHead(InetSocketAddress address, String path) {
    String host = address.getHostString();
    if (!address.isUnresolved() && address.getAddress() instanceof Inet6Address
        || host.indexOf(':') >= 0) {
      host = "[" + host + "]";
    }
    this.headStart =
        ("POST "
                + path
                + " HTTP/1.1\r\nHost: "
                + host
                + ":"
                + address.getPort()
                + "\r\nContent-Type: application/x-thrift\r\nAccept: application/x-thrift\r\n"
                + "Content-Length: ")
            .getBytes(StandardCharsets.ISO_8859_1);
  }

  /** Fields this head writes itself, lower-cased: a caller's header may not set them. */
  private static final Set<String> OWN_FIELDS =
      Set.of(
          "host",
          "content-type",
          "accept",
          "content-length",
          "transfer-encoding",
          "connection",
          "expect",
          "upgrade");

  /**
   * Why {@code headers} cannot be sent as HTTP header fields, or {@code null} if they can: a name
   * that is not a token, a value with a control character (CR/LF would split the request), or a
   * field the head writes itself.
   */
  static String refusal(Map<String, String> headers) {
    for (Map.Entry<String, String> e : headers.entrySet()) {
      String name = e.getKey();
      boolean token = !name.isEmpty();
      for (int i = 0; token && i < name.length(); i++) {
        char c = name.charAt(i);
        token = c > ' ' && c < 0x7f && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0;
      }
      if (!token) {
        return "request header name \"" + printable(name) + "\" (expected: an HTTP token)";
      }
      if (OWN_FIELDS.contains(name.toLowerCase(Locale.ROOT))) {
        return "request header \""
            + name
            + "\" (expected: none of "
            + new TreeSet<>(OWN_FIELDS)
            + ", which the client writes itself)";
      }
      String value = e.getValue();
      for (int i = 0; i < value.length(); i++) {
        char c = value.charAt(i);
        if (c < ' ' && c != '\t' || c == 0x7f || c > 0xff) {
          return "request header \""
              + name
              + "\": value \""
              + printable(value)
              + "\" (expected: no control characters such as CR or LF, ISO-8859-1 only)";
        }
      }
    }
    return null;
  }

  private static String printable(String s) {
    return s.replace("\r", "\\r").replace("\n", "\\n");
  }

  /** The head before a body of {@code bodyLength} bytes. */
  byte[] head(int bodyLength) {
    return head(bodyLength, Map.of());
  }

  /**
   * The head before a body of {@code bodyLength} bytes, with {@code headers} as extra fields
   * (checked by {@link #refusal} first).
   */
  byte[] head(int bodyLength, Map<String, String> headers) {
    byte[] extra = NO_BYTES;
    if (!headers.isEmpty()) {
      StringBuilder b = new StringBuilder();
      for (Map.Entry<String, String> e : headers.entrySet()) {
        b.append(e.getKey()).append(": ").append(e.getValue()).append("\r\n");
      }
      extra = b.toString().getBytes(StandardCharsets.ISO_8859_1);
    }
    int digits = digits(bodyLength);
    byte[] head = new byte[extra.length + headStart.length + digits + 4];
    // The extra fields go before Content-Length, the last line of headStart's block.
    int split = headStart.length - CONTENT_LENGTH.length;
    System.arraycopy(headStart, 0, head, 0, split);
    System.arraycopy(extra, 0, head, split, extra.length);
    System.arraycopy(CONTENT_LENGTH, 0, head, split + extra.length, CONTENT_LENGTH.length);
    int at = headStart.length + extra.length;
    int v = bodyLength;
    for (int i = at + digits - 1; i >= at; i--) {
      head[i] = (byte) ('0' + v % 10);
      v /= 10;
    }
    at += digits;
    head[at++] = '\r';
    head[at++] = '\n';
    head[at++] = '\r';
    head[at] = '\n';
    return head;
  }

  private static int digits(int v) {
    int n = 1;
    while (v >= 10) {
      v /= 10;
      n++;
    }
    return n;
  }
}
