package io.thriftnio.core.wire;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads HTTP/1.1 responses to Thrift calls posted by this library's HTTP clients, on {@link
 * HttpParser}'s syntax and limits: the status line, interim {@code 1xx} responses (skipped, counted
 * in the length), bodies without a length (up to the end of the stream), and whether the connection
 * ends after the response ({@code Connection: close}, an HTTP/1.0 status line without {@code
 * Connection: keep-alive}, or a body delimited by the end of the stream).
 */
final class HttpResponseParser extends HttpParser {

  private int status;
  private String reason;
  private boolean toEof;
  private Map<String, String> headers;

  /**
   * @param maxBodySize the largest body accepted, in bytes: the client's {@code maxFrameSize}
   */
  HttpResponseParser(int maxBodySize) {
    super(maxBodySize, "status line");
  }

  /** The status code of the whole response. */
  int status() {
    return status;
  }

  /** The reason phrase of the whole response, possibly empty. */
  String reason() {
    return reason;
  }

  /** Whether the connection stays open after the whole response. */
  boolean keepAlive() {
    return !fields.closeSaid && (!http10 || fields.keepAliveSaid) && !toEof;
  }

  /**
   * The stream ended with {@code available} bytes buffered from the response's start: its length if
   * its body is delimited by the end of the stream (or it is whole), else a failure saying where it
   * was cut.
   */
  int endOfStream(int available) throws Failure {
    if (state == State.BODY_TO_EOF) {
      body.add(pos, available - pos);
      pos = available;
      state = State.DONE;
      return pos;
    }
    if (state == State.DONE) {
      return pos;
    }
    throw new Failure(0, truncation(available));
  }

  private String truncation(int available) {
    switch (state) {
      case START_LINE:
        return available == 0
            ? "connection closed before a response"
            : "connection closed in the status line after " + available + " bytes";
      case HEADERS:
        return "connection closed in the header section of a " + status + " response";
      case BODY:
        return "connection closed after "
            + (available - pos)
            + " of "
            + declaredLength()
            + " body bytes of a "
            + status
            + " response";
      default:
        return "connection closed in the chunked body of a "
            + status
            + " response after "
            + bodyLength()
            + " declared bytes";
    }
  }

  @Override
  void resetHead() {
    super.resetHead();
    status = 0;
    reason = null;
    toEof = false;
    headers = null;
  }

  @Override
  boolean startLine(String line) throws Failure {
    // HTTP-version SP 3DIGIT SP [reason-phrase]; some servers omit the last space (RFC 9112 4).
    if (line.length() < 12 || line.charAt(8) != ' ' || !line.startsWith("HTTP/")) {
      throw new Failure(0, "malformed status line '" + HttpLines.abbreviate(line) + "'");
    }
    char minor = line.charAt(7);
    if (!line.startsWith("HTTP/1.") || minor != '0' && minor != '1') {
      throw new Failure(
          0,
          "HTTP version "
              + line.substring(0, 8)
              + " (expected: HTTP/1.1 or HTTP/1.0) in '"
              + HttpLines.abbreviate(line)
              + "'");
    }
    http10 = minor == '0';
    String code = line.substring(9, 12);
    if (!HttpLines.allDigits(code) || (line.length() > 12 && line.charAt(12) != ' ')) {
      throw new Failure(0, "malformed status line '" + HttpLines.abbreviate(line) + "'");
    }
    status = Integer.parseInt(code);
    if (status < 100) {
      throw new Failure(0, "status " + status + " (expected: 100..999)");
    }
    reason = line.length() > 13 ? line.substring(13) : "";
    return true;
  }

  @Override
  void field(String name, String value) {
    // Bounded by the parser's MAX_HEADER_COUNT and MAX_HEADER_BYTES; for the call's context.
    if (headers == null) {
      headers = new LinkedHashMap<>();
    }
    headers.merge(name, value, (first, next) -> first + ", " + next); // RFC 9110 5.3
  }

  /** The response's header fields (names lower-cased), read-only; empty if none. */
  Map<String, String> headers() {
    return headers == null ? Map.of() : Collections.unmodifiableMap(headers);
  }

  @Override
  void headersDone() throws Failure {
    if (status < 200) {
      resetHead(); // an interim response (100 Continue, 103 Early Hints): the final one follows
      return;
    }
    if (fields.chunked && fields.contentLength >= 0) {
      throw new Failure(
          0, "both Transfer-Encoding and Content-Length in a " + status + " response");
    }
    checkContentLength();
    if (status == 204 || status == 304) {
      state = State.DONE;
    } else if (fields.chunked || fields.contentLength >= 0) {
      bodyFollows(fields.contentLength);
    } else {
      toEof = true;
      state = State.BODY_TO_EOF;
    }
  }

  @Override
  String bodyPrefix() {
    return "response " + status + " ";
  }
}
