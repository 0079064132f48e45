package io.thriftnio.core.wire;

import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.WireKind;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TProtocolException;

/**
 * {@link WireKind#HTTP}: each request is a POST; replies are responses, pipelined on one keep-alive
 * connection: MESSAGE (200), FAILED (other statuses), SKIPPED (a oneway call's).
 */
final class HttpClientCodec extends ReplyReader {

  private final HttpResponseDecoder decoder;
  private final HttpRequestHead requestHead;
  private Map<String, String> replyHeaders = Map.of(); // the reading thread's

  /**
   * @param maxFrameSize the largest response body accepted, in bytes
   * @param address the server, as the caller named it (its Host field)
   * @param peer the server as every message of this library writes it
   * @param path the request path
   */
  HttpClientCodec(int maxFrameSize, InetSocketAddress address, String peer, String path) {
    this(new HttpResponseDecoder(maxFrameSize, address, peer), address, peer, path);
  }

  private HttpClientCodec(
      HttpResponseDecoder decoder, InetSocketAddress address, String peer, String path) {
    super(decoder, peer);
    this.decoder = decoder;
    this.requestHead = new HttpRequestHead(address, path);
  }

  @Override
  public WireKind wireKind() {
    return WireKind.HTTP;
  }

  @Override
  public boolean carriesHeaders() {
    return true;
  }

  @Override
  public TException refusal(ByteBuffer message, Map<String, String> headers) {
    if (headers.isEmpty()) {
      return null;
    }
    String wrong = HttpRequestHead.refusal(headers);
    return wrong == null
        ? null
        : new TProtocolException(
            TProtocolException.INVALID_DATA, "HTTP request to " + peer() + " not sent: " + wrong);
  }

  @Override
  public byte[] head(
      ByteBuffer message,
      boolean oneway,
      Map<String, String> headers,
      int seqId,
      long timeoutMillis) {
    decoder.expect(oneway);
    return requestHead.head(message.remaining(), withTimeout(headers, timeoutMillis));
  }

  /**
   * {@code headers} with {@value ServerCallContext#CLIENT_TIMEOUT_HEADER} when there is a timeout.
   */
  static Map<String, String> withTimeout(Map<String, String> headers, long timeoutMillis) {
    if (timeoutMillis <= 0) {
      return headers;
    }
    Map<String, String> sent = new LinkedHashMap<>(headers);
    sent.put(ServerCallContext.CLIENT_TIMEOUT_HEADER, Long.toString(timeoutMillis));
    return sent;
  }

  @Override
  public Map<String, String> replyHeaders() {
    return replyHeaders;
  }

  @Override
  void delivered() {
    replyHeaders = decoder.lastHeaders();
  }
}
