package io.thriftnio.core.wire;

import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

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

  /** The head before a body of {@code bodyLength} bytes. */
  byte[] head(int bodyLength) {
    int digits = digits(bodyLength);
    byte[] head = new byte[headStart.length + digits + 4];
    System.arraycopy(headStart, 0, head, 0, headStart.length);
    int at = headStart.length;
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
