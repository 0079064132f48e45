package io.thriftnio.core.wire;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Reads HTTP/1.1 requests that carry one Thrift message each ({@code THttpClient}, {@code
 * TServlet}'s peers), on {@link HttpParser}'s syntax and limits: the request line, {@code Expect:
 * 100-continue}, the content type to echo, and what refuses a request.
 *
 * <p>Refusals that leave the stream unreadable (malformed syntax, a limit broken) throw, with the
 * status of their answer; a request that is well formed but is not a {@code POST} to the configured
 * path is read whole with {@link #refusal()} set, and the connection stays open when it had no body
 * (a body is not worth reading to throw it away: the answer closes the connection).
 */
final class HttpRequestParser extends HttpParser {

  private final String path;
  private final String healthPath;
  private final BooleanSupplier serving;

  private String method;
  private String target;
  private boolean expectContinue;
  private boolean continueDue;
  private String contentType;
  private int refusal;
  private String refusalReason;
  private boolean refusalCloses;
  private HttpEnvelope envelope;

  /** The request's fields for the call context, as they come; {@code null} until the first. */
  private Map<String, String> headers;

  /**
   * @param path the path Thrift calls are posted to, e.g. {@code /}; a query string is ignored
   * @param maxBodySize the largest body accepted, in bytes: the server's {@code maxFrameSize}
   */
  HttpRequestParser(String path, int maxBodySize) {
    this(path, maxBodySize, null, null);
  }

  /**
   * @param path the path Thrift calls are posted to, e.g. {@code /}; a query string is ignored;
   *     {@code null} for none (a probe connection's parser): every request but a probe is then
   *     refused as its header section ends, before any body is read
   * @param maxBodySize the largest body accepted, in bytes: the server's {@code maxFrameSize}
   * @param healthPath where a {@code GET} is a health probe; {@code null} for none
   * @param serving whether a probe is answered {@code 200} (else {@code 503}); with a health path
   */
  HttpRequestParser(String path, int maxBodySize, String healthPath, BooleanSupplier serving) {
    super(maxBodySize, "request line");
    this.path = path;
    this.healthPath = healthPath;
    this.serving = serving;
  }

  /** Whether the {@link #refusal()} answers a health probe ({@code 200} or {@code 503}). */
  boolean isHealthProbe() {
    return refusal == 200 || refusal == 503;
  }

  /**
   * Whether {@code 100 Continue} is due now: the request asked for it, and its header section was
   * accepted. True once per request.
   */
  boolean takeContinue() {
    boolean due = continueDue;
    continueDue = false;
    return due;
  }

  /**
   * {@code 404} (another path), {@code 405} (another method), or a health probe's {@code 200} or
   * {@code 503}, for a whole request answered without a call; else 0.
   */
  int refusal() {
    return refusal;
  }

  /** The answer to a request with a {@link #refusal()}. */
  java.nio.ByteBuffer refusalResponse() {
    boolean keepAlive = !refusalCloses && keepAlive();
    return HttpResponses.error(refusal, refusalReason, keepAlive, keepAlive && http10);
  }

  /** Whether the connection stays open after the whole request's answer. */
  boolean keepAlive() {
    return !refusalCloses && !fields.closeSaid && (!http10 || fields.keepAliveSaid);
  }

  /** How the whole request's reply leaves; {@code null} for a refused one. */
  HttpEnvelope envelope() {
    return envelope;
  }

  @Override
  void reset() {
    super.reset();
    method = null;
    target = null;
    expectContinue = false;
    continueDue = false;
    contentType = null;
    refusal = 0;
    refusalReason = null;
    refusalCloses = false;
    envelope = null;
    headers = null;
  }

  @Override
  boolean startLine(String line) throws Failure {
    if (line.isEmpty()) {
      return false; // RFC 9112 2.2: empty lines before a request line are ignored (and bounded)
    }
    int sp1 = line.indexOf(' ');
    int sp2 = sp1 < 0 ? -1 : line.indexOf(' ', sp1 + 1);
    if (sp1 <= 0 || sp2 < 0 || line.indexOf(' ', sp2 + 1) >= 0) {
      throw new Failure(400, "malformed request line '" + HttpLines.abbreviate(line) + "'");
    }
    method = line.substring(0, sp1);
    for (int i = 0; i < method.length(); i++) {
      if (!HttpLines.isTokenChar(method.charAt(i))) {
        throw new Failure(400, "malformed method in '" + HttpLines.abbreviate(line) + "'");
      }
    }
    target = line.substring(sp1 + 1, sp2);
    String version = line.substring(sp2 + 1);
    if (version.equals("HTTP/1.1")) {
      http10 = false;
    } else if (version.equals("HTTP/1.0")) {
      http10 = true;
    } else if (version.startsWith("HTTP/") && version.length() == 8) {
      throw new Failure(505, "HTTP version " + version + " (expected: HTTP/1.1 or HTTP/1.0)");
    } else {
      throw new Failure(400, "malformed request line '" + HttpLines.abbreviate(line) + "'");
    }
    if (target.isEmpty()) {
      throw new Failure(400, "empty request target");
    }
    return true;
  }

  @Override
  void field(String name, String value) throws Failure {
    if (headers == null) {
      headers = new LinkedHashMap<>();
    }
    headers.merge(name, value, (first, next) -> first + ", " + next); // RFC 9110 5.3
    if (name.equals("expect")) {
      if (!value.equalsIgnoreCase("100-continue")) {
        throw new Failure(
            417, "Expect '" + HttpLines.abbreviate(value) + "' (expected: 100-continue)");
      }
      expectContinue = true;
    } else if (name.equals("content-type")) {
      int semi = value.indexOf(';');
      contentType = (semi < 0 ? value : value.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
    }
  }

  @Override
  void headersDone() throws Failure {
    if (fields.chunked && fields.contentLength >= 0) {
      // RFC 9112 6.3: both at once is how requests are smuggled past proxies.
      throw new Failure(400, "both Transfer-Encoding and Content-Length");
    }
    if (fields.chunked && http10) {
      throw new Failure(400, "Transfer-Encoding in an HTTP/1.0 request");
    }
    checkContentLength();
    boolean hasBody = fields.chunked || fields.contentLength > 0;
    if (healthPath != null && method.equals("GET") && healthPath.equals(pathOf(target))) {
      boolean up = serving.getAsBoolean();
      refusal = up ? 200 : 503;
      refusalReason = up ? "serving" : "draining";
    } else if (!method.equals("POST")) {
      refusal = 405;
      refusalReason = "method " + method + " (expected: POST)";
    } else if (path == null || !path.equals(pathOf(target))) {
      refusal = 404;
      refusalReason = "path " + HttpLines.abbreviate(target) + " (expected: " + path + ")";
    } else if (!hasBody) {
      throw new Failure(400, "POST without a body (expected: one Thrift message)");
    }
    if (refusal != 0) {
      // Not worth reading a body to throw it away: answer, then close.
      refusalCloses = hasBody || expectContinue;
      state = State.DONE;
      return;
    }
    continueDue = expectContinue;
    bodyFollows(fields.contentLength);
  }

  @Override
  void emptyChunkedBody() throws Failure {
    throw new Failure(400, "POST without a body (expected: one Thrift message)");
  }

  @Override
  void whole() {
    if (refusal == 0) {
      envelope =
          new HttpEnvelope(
              keepAlive(),
              http10,
              responseType(contentType),
              headers == null ? Map.of() : Collections.unmodifiableMap(headers));
    }
  }

  @Override
  String bodyPrefix() {
    return "";
  }

  /** The path of a request target in origin form ({@code /p?q}) or absolute form. */
  private static String pathOf(String target) {
    String t = target;
    if (!t.startsWith("/")) {
      int scheme = t.indexOf("://");
      if (scheme < 0) {
        return t;
      }
      int slash = t.indexOf('/', scheme + 3);
      t = slash < 0 ? "/" : t.substring(slash);
    }
    int query = t.indexOf('?');
    return query < 0 ? t : t.substring(0, query);
  }

  /**
   * The {@code Content-Type} of a successful answer: the request's own when it is one of
   * libthrift's protocol types ({@code application/vnd.apache.thrift.binary}, {@code .compact},
   * {@code .json}), else {@code application/x-thrift}.
   */
  static String responseType(String requestType) {
    if (requestType != null
        && (requestType.equals("application/vnd.apache.thrift.binary")
            || requestType.equals("application/vnd.apache.thrift.compact")
            || requestType.equals("application/vnd.apache.thrift.json"))) {
      return requestType;
    }
    return "application/x-thrift";
  }
}
