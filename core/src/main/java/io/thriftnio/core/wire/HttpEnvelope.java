package io.thriftnio.core.wire;

import java.nio.ByteBuffer;
import java.util.Map;

/**
 * What one HTTP request asks of its answer, and how its reply leaves: a {@code 200} head, then the
 * reply message as the body (empty for a oneway call, since HTTP still wants an answer); a {@code
 * 400} when the request's message cannot be read. Immutable but for the reply's own headers ({@link
 * #responseHeaders}, given once before {@link #encode}), which go into the {@code 200}'s head, not
 * into a {@code 400}, and for {@link #closeAfterReply} (an aged connection), which turns a
 * keep-alive answer into one that says {@code Connection: close}; both are published to the writer
 * by the call path's monitor.
 */
final class HttpEnvelope extends Envelope {

  private boolean keepAlive;
  private final boolean http10;
  private final String contentType;
  private final Map<String, String> headers;

  /** The reply's own header fields: set by the call path before encode, read by it. */
  private Map<String, String> replyHeaders = Map.of();

  /**
   * @param headers the request's header fields but those the server reads itself, names
   *     lower-cased, read-only
   */
  HttpEnvelope(boolean keepAlive, boolean http10, String contentType, Map<String, String> headers) {
    this.keepAlive = keepAlive;
    this.http10 = http10;
    this.contentType = contentType;
    this.headers = headers;
  }

  @Override
  public void encode(ByteBuffer frame, boolean unreadable, Outbound out) {
    if (unreadable) {
      out.send(
          HttpResponses.error(400, "the body is not a readable Thrift message", false, false),
          null);
    } else if (frame != null) {
      ByteBuffer body = message(frame);
      out.send(
          HttpResponses.ok(this, body.remaining(), replyHeaders),
          body); // one write, no copy of the reply
    } else {
      out.send(
          HttpResponses.ok(this, 0, replyHeaders),
          null); // a oneway call: HTTP still wants its answer
    }
  }

  @Override
  public void responseHeaders(Map<String, String> headers) {
    this.replyHeaders = headers;
  }

  @Override
  public boolean closeAfterReply() {
    keepAlive = false;
    return true;
  }

  @Override
  public Map<String, String> headers() {
    return headers;
  }

  @Override
  public boolean closesConnection() {
    return !keepAlive;
  }

  /** Whether the connection stays open after the answer. */
  boolean keepAlive() {
    return keepAlive;
  }

  /**
   * Whether the answer must say {@code Connection: keep-alive}: an HTTP/1.0 peer that asked for it
   * closes otherwise.
   */
  boolean saysKeepAlive() {
    return keepAlive && http10;
  }

  /** The {@code Content-Type} of a successful answer. */
  String contentType() {
    return contentType;
  }

  @Override
  public String toString() {
    return "HTTP{" + contentType + (keepAlive ? ", keep-alive}" : ", close}");
  }
}
