package io.thriftnio.core.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The HTTP/1.1 responses a server writes for HTTP peers: the head of a {@code 200} whose body is
 * the Thrift reply, {@code 100 Continue}, and whole error responses.
 *
 * <pre>
 * HTTP/1.1 200 OK\r\n
 * Content-Type: application/x-thrift\r\n      (or the request's application/vnd.apache.thrift.*)
 * Content-Length: 42\r\n                      (0 for a oneway call)
 * Connection: close\r\n                       (only when the connection closes after it)
 * X-Reply-Header: value\r\n                   (the reply's own headers, in the order set)
 * \r\n
 * </pre>
 */
final class HttpResponses {

  private static final byte[] CONTINUE =
      "HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  private HttpResponses() {}

  /** {@code 100 Continue}, sent before a body that the request's header section announced. */
  static ByteBuffer continue100() {
    return ByteBuffer.wrap(CONTINUE);
  }

  /**
   * The head of a {@code 200} answer.
   *
   * @param request the request answered
   * @param bodyLength the reply's length in bytes, 0 for a oneway call
   * @param replyHeaders the reply's own header fields, validated when set (tokens, no CR or LF,
   *     none of the three above)
   */
  static ByteBuffer ok(HttpEnvelope request, int bodyLength, Map<String, String> replyHeaders) {
    StringBuilder sb = new StringBuilder(128);
    sb.append("HTTP/1.1 200 OK\r\nContent-Type: ")
        .append(request.contentType())
        .append("\r\nContent-Length: ")
        .append(bodyLength)
        .append("\r\n");
    if (!request.keepAlive()) {
      sb.append("Connection: close\r\n");
    } else if (request.saysKeepAlive()) {
      sb.append("Connection: keep-alive\r\n");
    }
    for (Map.Entry<String, String> field : replyHeaders.entrySet()) {
      sb.append(field.getKey()).append(": ").append(field.getValue()).append("\r\n");
    }
    sb.append("\r\n");
    return ByteBuffer.wrap(sb.toString().getBytes(StandardCharsets.US_ASCII));
  }

  /**
   * A whole answer without a call (an error, a health probe's) with its reason as a plain-text
   * body; {@code 405} carries {@code Allow: POST}.
   *
   * @param status the status code
   * @param reason what was wrong, for the peer's logs
   * @param keepAlive whether the connection stays open after it
   * @param saysKeepAlive whether to say so ({@code Connection: keep-alive}, for HTTP/1.0 peers)
   */
  static ByteBuffer error(int status, String reason, boolean keepAlive, boolean saysKeepAlive) {
    byte[] body = (reason + "\n").getBytes(StandardCharsets.UTF_8);
    StringBuilder sb = new StringBuilder(160);
    sb.append("HTTP/1.1 ").append(status).append(' ').append(reasonPhrase(status)).append("\r\n");
    if (status == 405) {
      sb.append("Allow: POST\r\n");
    }
    sb.append("Content-Type: text/plain; charset=utf-8\r\nContent-Length: ")
        .append(body.length)
        .append("\r\n");
    if (!keepAlive) {
      sb.append("Connection: close\r\n");
    } else if (saysKeepAlive) {
      sb.append("Connection: keep-alive\r\n");
    }
    sb.append("\r\n");
    byte[] head = sb.toString().getBytes(StandardCharsets.US_ASCII);
    ByteBuffer all = ByteBuffer.allocate(head.length + body.length);
    all.put(head).put(body).flip();
    return all;
  }

  static String reasonPhrase(int status) {
    switch (status) {
      case 200:
        return "OK";
      case 400:
        return "Bad Request";
      case 404:
        return "Not Found";
      case 405:
        return "Method Not Allowed";
      case 413:
        return "Content Too Large";
      case 414:
        return "URI Too Long";
      case 417:
        return "Expectation Failed";
      case 431:
        return "Request Header Fields Too Large";
      case 501:
        return "Not Implemented";
      case 503:
        return "Service Unavailable";
      case 505:
        return "HTTP Version Not Supported";
      default:
        return "Error";
    }
  }
}
