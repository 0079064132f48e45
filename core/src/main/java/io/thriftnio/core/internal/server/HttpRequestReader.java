package io.thriftnio.core.internal.server;

import io.thriftnio.core.internal.UnframedMessages;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * Reads HTTP/1.1 requests that carry one Thrift message each ({@code THttpClient}, {@code
 * TServlet}'s peers) from a connection's bytes, one request at a time, incrementally: it keeps its
 * place between reads and reads nothing twice. The caller consumes nothing before {@link #next}
 * says a request is whole, then takes its body and calls {@link #reset}. Not part of the API.
 *
 * <pre>
 * POST /path HTTP/1.1\r\n                 request line   (at most MAX_REQUEST_LINE bytes)
 * Content-Length: 21\r\n                  header fields  (at most MAX_HEADER_COUNT, and with the
 * Content-Type: application/x-thrift\r\n                  request line MAX_HEADER_BYTES in all)
 * \r\n
 * 80 01 00 01 ...                         the body: one Thrift message, at most maxBodySize bytes,
 *                                         Content-Length or Transfer-Encoding: chunked
 * </pre>
 *
 * <p>Every limit is checked as soon as the bytes that break it are here: a {@code Content-Length}
 * above {@code maxBodySize} is refused with {@code 413} when the header section ends, before
 * anything waits for the body, and a chunk whose declared size would carry the body over the limit
 * as soon as its size line is read. Nothing is allocated for a body until all of it has arrived.
 * Refusals that leave the stream unreadable (malformed syntax, a limit broken) throw {@link
 * Refused}, whose response is sent before the connection closes; a request that is well formed but
 * is not a {@code POST} to the configured path is returned whole, with {@link Request#refusal()}
 * set, and the connection stays open when it had no body.
 */
public final class HttpRequestReader {

  /** {@link #next}: the request is not whole yet. */
  public static final int NEED_MORE = -1;

  /** The longest request line accepted, in bytes, without its line end; {@code 414} above. */
  public static final int MAX_REQUEST_LINE = 8192;

  /** The most header fields accepted in one request (trailers included); {@code 431} above. */
  public static final int MAX_HEADER_COUNT = 100;

  /**
   * The most bytes of a request outside its body data: the request line, the header fields and, for
   * a chunked body, the chunk size lines and trailers; {@code 431} above. A peer that never ends
   * its header section is refused once it has sent this much.
   */
  public static final int MAX_HEADER_BYTES = 65_536;

  private static final String CONTINUE_100 = "100-continue";

  private enum State {
    REQUEST_LINE,
    HEADERS,
    BODY,
    CHUNK_SIZE,
    CHUNK_DATA,
    CHUNK_END,
    TRAILERS,
    DONE
  }

  /** A request that breaks HTTP's syntax or a limit: answer {@link #response()}, then close. */
  public static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;

    private final int status;

    Refused(int status, String reason) {
      super(reason, null, false, false);
      this.status = status;
    }

    /** The HTTP status code of the answer: 400, 413, 414, 417, 431, 501 or 505. */
    public int status() {
      return status;
    }

    /**
     * A line for the log: the status, the peer and what was wrong.
     *
     * @param peer the remote address, or whatever the IO library reports
     */
    public String describe(Object peer) {
      return "HTTP request from " + peer + " refused with " + status + ": " + getMessage();
    }

    /** The whole answer, {@code Connection: close}, its reason as a plain-text body. */
    public ByteBuffer response() {
      return HttpResponses.error(status, getMessage(), false, false);
    }
  }

  /** What a whole request asks, for its answer. Immutable. */
  public static final class Request {
    private final boolean keepAlive;
    private final boolean http10;
    private final String contentType;
    private final int refusal;
    private final String refusalReason;

    Request(
        boolean keepAlive, boolean http10, String contentType, int refusal, String refusalReason) {
      this.keepAlive = keepAlive;
      this.http10 = http10;
      this.contentType = contentType;
      this.refusal = refusal;
      this.refusalReason = refusalReason;
    }

    /** Whether the connection stays open after the answer. */
    public boolean keepAlive() {
      return keepAlive;
    }

    /**
     * Whether the answer must say {@code Connection: keep-alive}: an HTTP/1.0 peer that asked for
     * it closes otherwise.
     */
    public boolean saysKeepAlive() {
      return keepAlive && http10;
    }

    /**
     * The {@code Content-Type} of a successful answer: the request's own when it is one of
     * libthrift's protocol types ({@code application/vnd.apache.thrift.binary}, {@code .compact},
     * {@code .json}), else {@code application/x-thrift}.
     */
    public String contentType() {
      return contentType;
    }

    /** {@code 404} (another path) or {@code 405} (another method), else {@code 0}. */
    public int refusal() {
      return refusal;
    }

    /** The answer to a request with a {@link #refusal()}. */
    public ByteBuffer refusalResponse() {
      return HttpResponses.error(refusal, refusalReason, keepAlive, saysKeepAlive());
    }
  }

  private final String path;
  private final int maxBodySize;

  private State state = State.REQUEST_LINE;

  /** Offset from the request's first byte of the next byte to read. */
  private int pos;

  /** Offset of the current line's first byte. */
  private int lineStart;

  /** Bytes outside body data so far. */
  private int overhead;

  private int headerCount;
  private String method;
  private String target;
  private boolean http10;
  private long contentLength = -1;
  private boolean chunked;
  private boolean closeRequested;
  private boolean keepAliveRequested;
  private boolean expectContinue;
  private boolean continueDue;
  private String contentType;

  private int bodyStart;
  private int bodyLength;
  private int chunkLeft;

  /** Chunk data as (offset, length) pairs; grows with chunks received. */
  private int[] chunks = new int[8];

  private int chunkCount;
  private Request request;

  /**
   * A reader for one connection.
   *
   * @param path the path Thrift calls are posted to, e.g. {@code /}; a query string is ignored
   * @param maxBodySize the largest body accepted, in bytes: the server's {@code maxFrameSize}
   */
  public HttpRequestReader(String path, int maxBodySize) {
    this.path = path;
    this.maxBodySize = maxBodySize;
  }

  /**
   * Reads on from where the last call stopped.
   *
   * @param bytes the connection's buffered bytes
   * @param start index of the request's first byte; the same on every call for one request
   * @param available bytes buffered from {@code start}
   * @return the request's length in bytes (head and body) once it is whole, else {@link #NEED_MORE}
   * @throws Refused when the request breaks HTTP's syntax or a limit
   */
  public int next(UnframedMessages.ByteSource bytes, int start, int available) throws Refused {
    while (true) {
      switch (state) {
        case REQUEST_LINE:
        case HEADERS:
        case CHUNK_SIZE:
        case CHUNK_END:
        case TRAILERS:
          {
            int end = lineEnd(bytes, start, available);
            if (end < 0) {
              return NEED_MORE;
            }
            String line = line(bytes, start, end);
            pos = end + 1;
            overhead += pos - lineStart;
            lineStart = pos;
            if (overhead > MAX_HEADER_BYTES) {
              throw new Refused(
                  431,
                  "header section over "
                      + MAX_HEADER_BYTES
                      + " bytes (request line, fields, chunk lines)");
            }
            onLine(line);
            break;
          }
        case BODY:
          if (available - bodyStart < bodyLength) {
            return NEED_MORE;
          }
          pos = bodyStart + bodyLength;
          finish();
          return pos;
        case CHUNK_DATA:
          {
            int here = Math.min(chunkLeft, available - pos);
            pos += here;
            chunkLeft -= here;
            if (chunkLeft > 0) {
              return NEED_MORE;
            }
            state = State.CHUNK_END;
            lineStart = pos;
            break;
          }
        case DONE:
          return pos;
        default:
          throw new AssertionError(state);
      }
      if (state == State.DONE) {
        finish();
        return pos;
      }
    }
  }

  /**
   * Whether {@code 100 Continue} is due now: the request asked for it, and its header section was
   * accepted. True once per request.
   */
  public boolean takeContinue() {
    boolean due = continueDue;
    continueDue = false;
    return due;
  }

  /** Whether some bytes of a request have been read and it is not whole yet. */
  public boolean inProgress() {
    return state != State.DONE && pos > 0;
  }

  /** The whole request, after {@link #next} returned its length. */
  public Request request() {
    return request;
  }

  /** Whether the whole request's body was chunked (then {@link #copyBody} assembles it). */
  public boolean chunked() {
    return chunked;
  }

  /** Offset of the body from the request's first byte; for a body that is not chunked. */
  public int bodyStart() {
    return bodyStart;
  }

  /** The body's length in bytes. */
  public int bodyLength() {
    return bodyLength;
  }

  /** Copies a chunked body's data, {@link #bodyLength()} bytes, into {@code dst}. */
  public void copyBody(UnframedMessages.ByteSource bytes, int start, byte[] dst) {
    int at = 0;
    for (int i = 0; i < chunkCount; i++) {
      int from = start + chunks[2 * i];
      int length = chunks[2 * i + 1];
      for (int j = 0; j < length; j++) {
        dst[at++] = bytes.get(from + j);
      }
    }
  }

  /** Forgets the request taken; the next one starts at the next {@code start}. */
  public void reset() {
    state = State.REQUEST_LINE;
    pos = 0;
    lineStart = 0;
    overhead = 0;
    headerCount = 0;
    method = null;
    target = null;
    http10 = false;
    contentLength = -1;
    chunked = false;
    closeRequested = false;
    keepAliveRequested = false;
    expectContinue = false;
    continueDue = false;
    contentType = null;
    bodyStart = 0;
    bodyLength = 0;
    chunkLeft = 0;
    chunkCount = 0;
    request = null;
  }

  private int lineEnd(UnframedMessages.ByteSource bytes, int start, int available) throws Refused {
    int limit = state == State.REQUEST_LINE ? MAX_REQUEST_LINE : MAX_HEADER_BYTES - overhead;
    for (int i = pos; i < available; i++) {
      byte b = bytes.get(start + i);
      if (b == '\n') {
        return i;
      }
      if (i - lineStart > limit) {
        failOnLongLine(limit);
      }
    }
    pos = available;
    if (available - lineStart > limit) {
      failOnLongLine(limit);
    }
    return -1;
  }

  private void failOnLongLine(int limit) throws Refused {
    if (state == State.REQUEST_LINE) {
      throw new Refused(414, "request line over " + limit + " bytes");
    }
    throw new Refused(
        431,
        "header section over " + MAX_HEADER_BYTES + " bytes (request line, fields, chunk lines)");
  }

  private String line(UnframedMessages.ByteSource bytes, int start, int end) throws Refused {
    int to = end;
    if (to > lineStart && bytes.get(start + to - 1) == '\r') {
      to--;
    }
    byte[] b = new byte[to - lineStart];
    for (int i = 0; i < b.length; i++) {
      byte c = bytes.get(start + lineStart + i);
      if (c == '\r' || c == 0) {
        throw new Refused(400, "stray CR or NUL in a line");
      }
      b[i] = c;
    }
    return new String(b, StandardCharsets.ISO_8859_1);
  }

  private void onLine(String line) throws Refused {
    switch (state) {
      case REQUEST_LINE:
        if (line.isEmpty()) {
          return; // RFC 9112 2.2: empty lines before a request line are ignored (and bounded)
        }
        requestLine(line);
        state = State.HEADERS;
        return;
      case HEADERS:
        if (line.isEmpty()) {
          headersDone();
        } else {
          field(line, false);
        }
        return;
      case CHUNK_SIZE:
        chunkSize(line);
        return;
      case CHUNK_END:
        if (!line.isEmpty()) {
          throw new Refused(400, "chunk data longer than its size");
        }
        state = State.CHUNK_SIZE;
        return;
      case TRAILERS:
        if (line.isEmpty()) {
          state = State.DONE;
        } else {
          field(line, true);
        }
        return;
      default:
        throw new AssertionError(state);
    }
  }

  private void requestLine(String line) throws Refused {
    int sp1 = line.indexOf(' ');
    int sp2 = sp1 < 0 ? -1 : line.indexOf(' ', sp1 + 1);
    if (sp1 <= 0 || sp2 < 0 || line.indexOf(' ', sp2 + 1) >= 0) {
      throw new Refused(400, "malformed request line '" + abbreviate(line) + "'");
    }
    method = line.substring(0, sp1);
    for (int i = 0; i < method.length(); i++) {
      if (!isTokenChar(method.charAt(i))) {
        throw new Refused(400, "malformed method in '" + abbreviate(line) + "'");
      }
    }
    target = line.substring(sp1 + 1, sp2);
    String version = line.substring(sp2 + 1);
    if (version.equals("HTTP/1.1")) {
      http10 = false;
    } else if (version.equals("HTTP/1.0")) {
      http10 = true;
    } else if (version.startsWith("HTTP/") && version.length() == 8) {
      throw new Refused(505, "HTTP version " + version + " (expected: HTTP/1.1 or HTTP/1.0)");
    } else {
      throw new Refused(400, "malformed request line '" + abbreviate(line) + "'");
    }
    if (target.isEmpty()) {
      throw new Refused(400, "empty request target");
    }
  }

  private void field(String line, boolean trailer) throws Refused {
    if (++headerCount > MAX_HEADER_COUNT) {
      throw new Refused(431, "more than " + MAX_HEADER_COUNT + " header fields");
    }
    int colon = line.indexOf(':');
    if (colon <= 0) {
      throw new Refused(400, "malformed header field '" + abbreviate(line) + "'");
    }
    String name = line.substring(0, colon);
    for (int i = 0; i < name.length(); i++) {
      if (!isTokenChar(name.charAt(i))) {
        // RFC 9112 5.1: whitespace before the colon is refused (request smuggling).
        throw new Refused(400, "malformed header field name '" + abbreviate(name) + "'");
      }
    }
    if (trailer) {
      return; // trailers are read and bounded, and carry nothing a Thrift call needs
    }
    String value = line.substring(colon + 1).trim();
    switch (name.toLowerCase(Locale.ROOT)) {
      case "content-length":
        contentLength(value);
        break;
      case "transfer-encoding":
        if (!value.equalsIgnoreCase("chunked") || chunked) {
          throw new Refused(
              501, "Transfer-Encoding '" + abbreviate(value) + "' (expected: chunked)");
        }
        chunked = true;
        break;
      case "connection":
        for (String token : value.split(",")) {
          String t = token.trim();
          if (t.equalsIgnoreCase("close")) {
            closeRequested = true;
          } else if (t.equalsIgnoreCase("keep-alive")) {
            keepAliveRequested = true;
          }
        }
        break;
      case "expect":
        if (!value.equalsIgnoreCase(CONTINUE_100)) {
          throw new Refused(417, "Expect '" + abbreviate(value) + "' (expected: 100-continue)");
        }
        expectContinue = true;
        break;
      case "content-type":
        int semi = value.indexOf(';');
        contentType = (semi < 0 ? value : value.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
        break;
      default:
        break;
    }
  }

  private void contentLength(String value) throws Refused {
    if (value.isEmpty() || value.length() > 18) {
      if (!value.isEmpty() && allDigits(value)) {
        throw new Refused(
            413, "Content-Length " + abbreviate(value) + " over the limit of " + maxBodySize);
      }
      throw new Refused(400, "Content-Length '" + abbreviate(value) + "' (expected: digits)");
    }
    if (!allDigits(value)) {
      throw new Refused(400, "Content-Length '" + abbreviate(value) + "' (expected: digits)");
    }
    long length = Long.parseLong(value);
    if (contentLength >= 0 && contentLength != length) {
      throw new Refused(
          400, "Content-Length " + contentLength + " and " + length + " in one request");
    }
    contentLength = length;
  }

  private void headersDone() throws Refused {
    if (chunked && contentLength >= 0) {
      // RFC 9112 6.3: both at once is how requests are smuggled past proxies.
      throw new Refused(400, "both Transfer-Encoding and Content-Length");
    }
    if (chunked && http10) {
      throw new Refused(400, "Transfer-Encoding in an HTTP/1.0 request");
    }
    if (contentLength > maxBodySize) {
      throw new Refused(
          413, "Content-Length " + contentLength + " over the limit of " + maxBodySize + " bytes");
    }
    boolean hasBody = chunked || contentLength > 0;
    int refusal = 0;
    String reason = null;
    if (!method.equals("POST")) {
      refusal = 405;
      reason = "method " + method + " (expected: POST)";
    } else if (!path.equals(pathOf(target))) {
      refusal = 404;
      reason = "path " + abbreviate(target) + " (expected: " + path + ")";
    } else if (!hasBody) {
      throw new Refused(400, "POST without a body (expected: one Thrift message)");
    }
    if (refusal != 0 && (hasBody || expectContinue)) {
      // Not worth reading a body to throw it away: answer, then close.
      closeRequested = true;
      request = new Request(false, http10, null, refusal, reason);
      state = State.DONE;
      bodyStart = pos;
      return;
    }
    if (refusal != 0) {
      request = new Request(keepAlive(), http10, null, refusal, reason);
      state = State.DONE;
      bodyStart = pos;
      return;
    }
    continueDue = expectContinue;
    bodyStart = pos;
    if (chunked) {
      state = State.CHUNK_SIZE;
    } else {
      bodyLength = (int) contentLength;
      state = State.BODY;
    }
  }

  private void chunkSize(String line) throws Refused {
    int semi = line.indexOf(';');
    String hex = (semi < 0 ? line : line.substring(0, semi)).trim();
    if (hex.isEmpty()) {
      throw new Refused(400, "empty chunk size line");
    }
    long size = 0;
    for (int i = 0; i < hex.length(); i++) {
      int d = Character.digit(hex.charAt(i), 16);
      if (d < 0) {
        throw new Refused(400, "chunk size '" + abbreviate(hex) + "' (expected: hex digits)");
      }
      size = size * 16 + d;
      if (bodyLength + size > maxBodySize) {
        throw new Refused(413, "chunked body over the limit of " + maxBodySize + " bytes");
      }
    }
    if (size == 0) {
      if (bodyLength == 0) {
        throw new Refused(400, "POST without a body (expected: one Thrift message)");
      }
      state = State.TRAILERS;
      return;
    }
    if (chunkCount * 2 == chunks.length) {
      chunks = Arrays.copyOf(chunks, chunks.length * 2);
    }
    chunks[2 * chunkCount] = pos;
    chunks[2 * chunkCount + 1] = (int) size;
    chunkCount++;
    bodyLength += (int) size;
    chunkLeft = (int) size;
    state = State.CHUNK_DATA;
  }

  private void finish() {
    state = State.DONE;
    if (request == null) {
      request = new Request(keepAlive(), http10, responseType(contentType), 0, null);
    }
  }

  private boolean keepAlive() {
    return !closeRequested && (!http10 || keepAliveRequested);
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

  static String responseType(String requestType) {
    if (requestType != null
        && (requestType.equals("application/vnd.apache.thrift.binary")
            || requestType.equals("application/vnd.apache.thrift.compact")
            || requestType.equals("application/vnd.apache.thrift.json"))) {
      return requestType;
    }
    return "application/x-thrift";
  }

  static boolean allDigits(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  static boolean isTokenChar(char c) {
    return c > 0x20 && c < 0x7f && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0;
  }

  static String abbreviate(String s) {
    return s.length() <= 64 ? s : s.substring(0, 64) + "...";
  }
}
