package io.thriftnio.core.internal.client;

import io.thriftnio.core.HttpStatusException;
import io.thriftnio.core.internal.server.HttpResponseReader;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.apache.thrift.transport.TTransportException;

/**
 * The HTTP side of a Thrift call that every HTTP client of this library shares: the request head
 * posted before each message, and what a whole response means for the call. Not part of the API.
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
public final class HttpCalls {

  private final InetSocketAddress address;
  private final byte[] headStart;

  /**
   * @param address the server, as the caller named it (its name goes into {@code Host})
   * @param path the path calls are posted to
   */
  public HttpCalls(InetSocketAddress address, String path) {
    this.address = address;
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

  /** The length of the head before a body of {@code bodyLength} bytes. */
  public int headLength(int bodyLength) {
    return headStart.length + digits(bodyLength) + 4;
  }

  /**
   * Writes the head for a body of {@code bodyLength} bytes at {@code dst[off]}; returns its end.
   */
  public int writeHead(int bodyLength, byte[] dst, int off) {
    System.arraycopy(headStart, 0, dst, off, headStart.length);
    int at = off + headStart.length;
    int n = digits(bodyLength);
    int v = bodyLength;
    for (int i = at + n - 1; i >= at; i--) {
      dst[i] = (byte) ('0' + v % 10);
      v /= 10;
    }
    at += n;
    dst[at++] = '\r';
    dst[at++] = '\n';
    dst[at++] = '\r';
    dst[at++] = '\n';
    return at;
  }

  private static int digits(int v) {
    int n = 1;
    while (v >= 10) {
      v /= 10;
      n++;
    }
    return n;
  }

  /**
   * Fails unless a whole response read by {@code reader} is a {@code 200}: an {@link
   * HttpStatusException} with the status, the reason and the start of its body.
   */
  public void checkStatus(HttpResponseReader reader, HttpResponseReader.BulkSource bytes, int start)
      throws HttpStatusException {
    if (reader.status() == 200) {
      return;
    }
    byte[] prefix = new byte[Math.min(reader.bodyLength(), HttpStatusException.MAX_BODY_PREFIX)];
    reader.copyBody(bytes, start, prefix);
    String body = new String(prefix, StandardCharsets.ISO_8859_1).strip();
    StringBuilder printable = new StringBuilder(body.length());
    for (int i = 0; i < body.length(); i++) {
      char c = body.charAt(i);
      printable.append(c < ' ' || c == 0x7f ? ' ' : c);
    }
    throw new HttpStatusException(
        reader.status(),
        reader.reason(),
        printable.toString(),
        address,
        ClientErrors.peer(address));
  }

  /** {@code CORRUPTED_DATA}: a response that cannot be read; the connection is closed. */
  public TTransportException malformed(HttpResponseReader.Malformed cause) {
    return new TTransportException(
        TTransportException.CORRUPTED_DATA,
        "malformed HTTP response from "
            + ClientErrors.peer(address)
            + ": "
            + cause.getMessage()
            + "; connection closed",
        cause);
  }

  /**
   * {@code END_OF_FILE}: the server closed the connection after the call was sent and before any
   * byte of its response; the call may have run, so it is not sent again.
   */
  public TTransportException closedBeforeResponse() {
    return new TTransportException(
        TTransportException.END_OF_FILE,
        "connection to "
            + ClientErrors.peer(address)
            + " closed by the server after the call was sent, before any response; the call may"
            + " have run, so it is not sent again");
  }
}
