package io.thriftnio.core.wire;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.thriftnio.core.HttpStatusException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Map;
import org.apache.thrift.transport.TTransportException;

/**
 * A client connection's HTTP/1.1 responses, matched in order to the requests posted ({@link
 * #expect}), pipelined on one keep-alive connection.
 *
 * <pre>
 *  POST a, POST b (oneway), POST c     one keep-alive connection, pipelined
 *  200 A, 200 (empty), 500 C           MESSAGE A; SKIPPED (b's future completed when written);
 *                                      FAILED with an HttpStatusException for c
 * </pre>
 *
 * <p>A response that ends the connection ({@code Connection: close}, HTTP/1.0, a body up to the end
 * of the stream) is delivered with {@link Decoded#closeAfter}; one that cannot be read refuses the
 * connection with {@code CORRUPTED_DATA}; a response no request waits for refuses it too.
 */
final class HttpResponseDecoder implements Decoder {

  private final HttpResponseParser parser;
  private final InetSocketAddress address;
  private final String peer;

  /** Per request written and not yet answered: whether it was oneway. */
  @GuardedBy("expected")
  private final ArrayDeque<Boolean> expected = new ArrayDeque<>();

  /** The header fields of the last response delivered; read on the reading thread. */
  private Map<String, String> lastHeaders = Map.of();

  /**
   * @param maxBodySize the largest response body, in bytes
   * @param address the server
   * @param peer the server as every message of this library writes it
   */
  HttpResponseDecoder(int maxBodySize, InetSocketAddress address, String peer) {
    this.parser = new HttpResponseParser(maxBodySize);
    this.address = address;
    this.peer = peer;
  }

  /** A request was posted; its response comes after those of the requests before it. */
  void expect(boolean oneway) {
    synchronized (expected) {
      expected.add(oneway);
    }
  }

  /** The header fields of the response last delivered, names lower-cased. */
  Map<String, String> lastHeaders() {
    return lastHeaders;
  }

  @Override
  public WireEvent decode(ByteSource in, int start, int available, Decoded out) {
    int length;
    try {
      length = parser.next(in, start, available);
    } catch (HttpParser.Failure e) {
      return out.refused(Refusal.ofClient(malformed(e)));
    }
    if (length == HttpParser.NEED_MORE) {
      return out.needMore();
    }
    return deliver(in, start, length, out);
  }

  @Override
  public WireEvent endOfStream(ByteSource in, int start, int available, Decoded out) {
    if (available == 0 && !parser.inProgress()) {
      return out.needMore();
    }
    int length;
    try {
      length = parser.endOfStream(available);
    } catch (HttpParser.Failure e) {
      return out.refused(Refusal.ofClient(malformed(e)));
    }
    return deliver(in, start, length, out);
  }

  /** The whole response of {@code length} bytes at {@code start}, for the call it answers. */
  private WireEvent deliver(ByteSource in, int start, int length, Decoded out) {
    Boolean oneway;
    synchronized (expected) {
      oneway = expected.poll();
    }
    if (oneway == null) {
      return out.refused(Refusal.of("a response arrived with no call pending", null, null));
    }
    WireEvent event;
    int status = parser.status();
    if (status != 200) {
      // A oneway call's caller has had its answer (written); a refusal of it has no one to tell,
      // and the calls behind it are unaffected, so the connection carries on.
      event = oneway ? out.skipped(length) : out.failed(length, statusException(in, start));
    } else if (oneway) {
      event = out.skipped(length); // its future completed when it was written
    } else if (parser.chunked()) {
      byte[] body = new byte[parser.bodyLength()];
      parser.copyBody(in, start, body);
      event = out.message(length, body, null);
    } else {
      event = out.message(length, parser.bodyStart(), parser.bodyLength(), null);
    }
    boolean keepAlive = parser.keepAlive();
    lastHeaders = parser.headers();
    parser.reset();
    if (!keepAlive) {
      out.closeAfter(
          "the server ended the connection after a " + status + " response (Connection: close)");
    }
    return event;
  }

  /**
   * The failure of a call answered with another status than {@code 200}: the status, the reason and
   * the start of the body.
   */
  private HttpStatusException statusException(ByteSource in, int start) {
    byte[] prefix = new byte[Math.min(parser.bodyLength(), HttpStatusException.MAX_BODY_PREFIX)];
    parser.copyBody(in, start, prefix);
    String body = new String(prefix, StandardCharsets.ISO_8859_1).strip();
    StringBuilder printable = new StringBuilder(body.length());
    for (int i = 0; i < body.length(); i++) {
      char c = body.charAt(i);
      printable.append(c < ' ' || c == 0x7f ? ' ' : c);
    }
    return new HttpStatusException(
        parser.status(), parser.reason(), printable.toString(), address, peer);
  }

  /** {@code CORRUPTED_DATA}: a response that cannot be read; the connection is closed. */
  private TTransportException malformed(HttpParser.Failure cause) {
    return new TTransportException(
        TTransportException.CORRUPTED_DATA,
        "malformed HTTP response from " + peer + ": " + cause.getMessage() + "; connection closed",
        cause);
  }
}
