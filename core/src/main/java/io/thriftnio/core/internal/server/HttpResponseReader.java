package io.thriftnio.core.internal.server;

import io.thriftnio.core.internal.UnframedMessages;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * Reads HTTP/1.1 responses to Thrift calls posted by this library's HTTP clients, one response at a
 * time, incrementally: it keeps its place between reads and reads nothing twice, as {@link
 * HttpRequestReader} does for requests, under the same limits. The caller consumes nothing before
 * {@link #next} says a response is whole, then takes its body and calls {@link #reset}. Not part of
 * the API.
 *
 * <pre>
 * HTTP/1.1 200 OK\r\n                      status line    (at most MAX_REQUEST_LINE bytes)
 * Content-Type: application/x-thrift\r\n   header fields  (at most MAX_HEADER_COUNT, and with the
 * Content-Length: 21\r\n                                   status line MAX_HEADER_BYTES in all)
 * \r\n
 * 80 01 00 02 ...                          the body: the reply message, at most maxBodySize bytes,
 *                                          Content-Length, chunked, or (no length) up to the end
 *                                          of the stream; empty for a oneway call
 * </pre>
 *
 * <p>Interim {@code 1xx} responses are skipped (counted in the length {@link #next} returns). A
 * {@code Content-Length} above {@code maxBodySize} fails as soon as the header section ends, a
 * chunk that would carry the body over it as soon as its size line is read; nothing is allocated
 * for a body until all of it has arrived. A response says whether the connection ends after it:
 * {@code Connection: close}, an HTTP/1.0 status line without {@code Connection: keep-alive}, or a
 * body delimited by the end of the stream.
 */
public final class HttpResponseReader {

  /** {@link #next}: the response is not whole yet. */
  public static final int NEED_MORE = -1;

  private enum State {
    STATUS_LINE,
    HEADERS,
    BODY,
    BODY_TO_EOF,
    CHUNK_SIZE,
    CHUNK_DATA,
    CHUNK_END,
    TRAILERS,
    DONE
  }

  /** A response that breaks HTTP's syntax or a limit: the connection cannot be read further. */
  public static final class Malformed extends Exception {
    private static final long serialVersionUID = 1L;

    Malformed(String reason) {
      super(reason, null, false, false);
    }
  }

  private final int maxBodySize;

  private State state = State.STATUS_LINE;
  private int pos;
  private int lineStart;
  private int overhead;
  private int headerCount;

  private int status;
  private String reason;
  private boolean http10;
  private long contentLength = -1;
  private boolean chunked;
  private boolean closeSaid;
  private boolean keepAliveSaid;
  private boolean toEof;

  private int bodyStart;
  private int bodyLength;
  private int chunkLeft;
  private int[] chunks = new int[8];
  private int chunkCount;

  /**
   * A reader for one connection.
   *
   * @param maxBodySize the largest body accepted, in bytes: the client's {@code maxFrameSize}
   */
  public HttpResponseReader(int maxBodySize) {
    this.maxBodySize = maxBodySize;
  }

  /**
   * Reads on from where the last call stopped.
   *
   * @param bytes the connection's buffered bytes
   * @param start index of the response's first byte; the same on every call for one response
   * @param available bytes buffered from {@code start}
   * @return the response's length in bytes (head and body) once it is whole, else {@link
   *     #NEED_MORE}
   * @throws Malformed when the response breaks HTTP's syntax or a limit
   */
  public int next(UnframedMessages.ByteSource bytes, int start, int available) throws Malformed {
    while (true) {
      switch (state) {
        case STATUS_LINE:
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
            if (overhead > HttpRequestReader.MAX_HEADER_BYTES) {
              failOnLongHead();
            }
            onLine(line);
            break;
          }
        case BODY:
          if (available - bodyStart < bodyLength) {
            return NEED_MORE;
          }
          pos = bodyStart + bodyLength;
          state = State.DONE;
          return pos;
        case BODY_TO_EOF:
          if (available - bodyStart > maxBodySize) {
            throw new Malformed(
                "response "
                    + status
                    + " body (up to the end of the stream) over the limit of "
                    + maxBodySize
                    + " bytes");
          }
          return NEED_MORE;
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
        return pos;
      }
    }
  }

  /**
   * The stream ended with {@code available} bytes buffered from {@code start}: the length of the
   * response if its body is delimited by the end of the stream, else a failure saying where the
   * response was cut.
   */
  public int endOfStream(int available) throws Malformed {
    if (state == State.BODY_TO_EOF) {
      bodyLength = available - bodyStart;
      pos = available;
      state = State.DONE;
      return pos;
    }
    if (state == State.DONE) {
      return pos;
    }
    throw new Malformed(truncation(available));
  }

  private String truncation(int available) {
    switch (state) {
      case STATUS_LINE:
        return available == 0
            ? "connection closed before a response"
            : "connection closed in the status line after " + available + " bytes";
      case HEADERS:
        return "connection closed in the header section of a " + status + " response";
      case BODY:
        return "connection closed after "
            + (available - bodyStart)
            + " of "
            + bodyLength
            + " body bytes of a "
            + status
            + " response";
      default:
        return "connection closed in the chunked body of a "
            + status
            + " response after "
            + bodyLength
            + " declared bytes";
    }
  }

  /** Whether some bytes of a response have been read and it is not whole yet. */
  public boolean inProgress() {
    return state != State.DONE && pos > 0;
  }

  /** The status code of the whole response. */
  public int status() {
    return status;
  }

  /** The reason phrase of the whole response, possibly empty. */
  public String reason() {
    return reason;
  }

  /** Whether the connection stays open after the whole response. */
  public boolean keepAlive() {
    return !closeSaid && (!http10 || keepAliveSaid) && !toEof;
  }

  /** Whether the whole response's body was chunked (then {@link #copyBody} assembles it). */
  public boolean chunked() {
    return chunked;
  }

  /** Offset of the body from the response's first byte; for a body that is not chunked. */
  public int bodyStart() {
    return bodyStart;
  }

  /** The body's length in bytes. */
  public int bodyLength() {
    return bodyLength;
  }

  /** Bytes that are also copied in bulk: a body is copied a run at a time, not byte by byte. */
  public interface BulkSource extends UnframedMessages.ByteSource {
    /** Copies {@code length} bytes from {@code index} into {@code dst} at {@code offset}. */
    void copy(int index, byte[] dst, int offset, int length);
  }

  /** Copies the body's first {@code dst.length} bytes (at most {@link #bodyLength()}). */
  public void copyBody(BulkSource bytes, int start, byte[] dst) {
    if (!chunked) {
      bytes.copy(start + bodyStart, dst, 0, dst.length);
      return;
    }
    int at = 0;
    for (int i = 0; i < chunkCount && at < dst.length; i++) {
      int length = Math.min(chunks[2 * i + 1], dst.length - at);
      bytes.copy(start + chunks[2 * i], dst, at, length);
      at += length;
    }
  }

  /** Forgets the response taken; the next one starts at the next {@code start}. */
  public void reset() {
    resetHead();
    pos = 0;
    lineStart = 0;
    overhead = 0;
  }

  private void resetHead() {
    state = State.STATUS_LINE;
    headerCount = 0;
    status = 0;
    reason = null;
    http10 = false;
    contentLength = -1;
    chunked = false;
    closeSaid = false;
    keepAliveSaid = false;
    toEof = false;
    bodyStart = 0;
    bodyLength = 0;
    chunkLeft = 0;
    chunkCount = 0;
  }

  private int lineEnd(UnframedMessages.ByteSource bytes, int start, int available)
      throws Malformed {
    int limit =
        state == State.STATUS_LINE
            ? HttpRequestReader.MAX_REQUEST_LINE
            : HttpRequestReader.MAX_HEADER_BYTES - overhead;
    for (int i = pos; i < available; i++) {
      if (bytes.get(start + i) == '\n') {
        return i;
      }
      if (i - lineStart > limit) {
        failOnLongHead();
      }
    }
    pos = available;
    if (available - lineStart > limit) {
      failOnLongHead();
    }
    return -1;
  }

  private void failOnLongHead() throws Malformed {
    throw new Malformed(
        state == State.STATUS_LINE
            ? "status line over " + HttpRequestReader.MAX_REQUEST_LINE + " bytes"
            : "header section over "
                + HttpRequestReader.MAX_HEADER_BYTES
                + " bytes (status line, fields, chunk lines)");
  }

  private String line(UnframedMessages.ByteSource bytes, int start, int end) throws Malformed {
    int to = end;
    if (to > lineStart && bytes.get(start + to - 1) == '\r') {
      to--;
    }
    byte[] b = new byte[to - lineStart];
    for (int i = 0; i < b.length; i++) {
      byte c = bytes.get(start + lineStart + i);
      if (c == '\r' || c == 0) {
        throw new Malformed("stray CR or NUL in a line");
      }
      b[i] = c;
    }
    return new String(b, StandardCharsets.ISO_8859_1);
  }

  private void onLine(String line) throws Malformed {
    switch (state) {
      case STATUS_LINE:
        statusLine(line);
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
          throw new Malformed("chunk data longer than its size");
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

  private void statusLine(String line) throws Malformed {
    // HTTP-version SP 3DIGIT SP [reason-phrase]; some servers omit the last space (RFC 9112 4).
    if (line.length() < 12 || line.charAt(8) != ' ' || !line.startsWith("HTTP/")) {
      throw new Malformed("malformed status line '" + HttpRequestReader.abbreviate(line) + "'");
    }
    char minor = line.charAt(7);
    if (!line.startsWith("HTTP/1.") || minor != '0' && minor != '1') {
      throw new Malformed(
          "HTTP version "
              + line.substring(0, 8)
              + " (expected: HTTP/1.1 or HTTP/1.0) in '"
              + HttpRequestReader.abbreviate(line)
              + "'");
    }
    http10 = minor == '0';
    String code = line.substring(9, 12);
    if (!HttpRequestReader.allDigits(code) || (line.length() > 12 && line.charAt(12) != ' ')) {
      throw new Malformed("malformed status line '" + HttpRequestReader.abbreviate(line) + "'");
    }
    status = Integer.parseInt(code);
    if (status < 100) {
      throw new Malformed("status " + status + " (expected: 100..999)");
    }
    reason = line.length() > 13 ? line.substring(13) : "";
  }

  private void field(String line, boolean trailer) throws Malformed {
    if (++headerCount > HttpRequestReader.MAX_HEADER_COUNT) {
      throw new Malformed("more than " + HttpRequestReader.MAX_HEADER_COUNT + " header fields");
    }
    int colon = line.indexOf(':');
    if (colon <= 0) {
      throw new Malformed("malformed header field '" + HttpRequestReader.abbreviate(line) + "'");
    }
    String name = line.substring(0, colon);
    for (int i = 0; i < name.length(); i++) {
      if (!HttpRequestReader.isTokenChar(name.charAt(i))) {
        throw new Malformed(
            "malformed header field name '" + HttpRequestReader.abbreviate(name) + "'");
      }
    }
    if (trailer) {
      return; // read and bounded; nothing in them matters to a Thrift reply
    }
    String value = line.substring(colon + 1).trim();
    switch (name.toLowerCase(Locale.ROOT)) {
      case "content-length":
        contentLength(value);
        break;
      case "transfer-encoding":
        if (!value.equalsIgnoreCase("chunked") || chunked) {
          throw new Malformed(
              "Transfer-Encoding '"
                  + HttpRequestReader.abbreviate(value)
                  + "' (expected: chunked)");
        }
        chunked = true;
        break;
      case "connection":
        for (String token : value.split(",")) {
          String t = token.trim();
          if (t.equalsIgnoreCase("close")) {
            closeSaid = true;
          } else if (t.equalsIgnoreCase("keep-alive")) {
            keepAliveSaid = true;
          }
        }
        break;
      default:
        break;
    }
  }

  private void contentLength(String value) throws Malformed {
    if (value.isEmpty() || !HttpRequestReader.allDigits(value)) {
      throw new Malformed(
          "Content-Length '" + HttpRequestReader.abbreviate(value) + "' (expected: digits)");
    }
    if (value.length() > 18) {
      throw new Malformed(
          "Content-Length "
              + HttpRequestReader.abbreviate(value)
              + " over the limit of "
              + maxBodySize
              + " bytes");
    }
    long length = Long.parseLong(value);
    if (contentLength >= 0 && contentLength != length) {
      throw new Malformed(
          "Content-Length " + contentLength + " and " + length + " in one response");
    }
    contentLength = length;
  }

  private void headersDone() throws Malformed {
    if (status < 200) {
      resetHead(); // an interim response (100 Continue, 103 Early Hints): the final one follows
      return;
    }
    if (chunked && contentLength >= 0) {
      throw new Malformed("both Transfer-Encoding and Content-Length in a " + status + " response");
    }
    if (contentLength > maxBodySize) {
      throw new Malformed(
          "response "
              + status
              + " Content-Length "
              + contentLength
              + " over the limit of "
              + maxBodySize
              + " bytes");
    }
    bodyStart = pos;
    if (status == 204 || status == 304) {
      state = State.DONE;
    } else if (chunked) {
      state = State.CHUNK_SIZE;
    } else if (contentLength >= 0) {
      bodyLength = (int) contentLength;
      state = State.BODY;
    } else {
      toEof = true;
      state = State.BODY_TO_EOF;
    }
  }

  private void chunkSize(String line) throws Malformed {
    int semi = line.indexOf(';');
    String hex = (semi < 0 ? line : line.substring(0, semi)).trim();
    if (hex.isEmpty()) {
      throw new Malformed("empty chunk size line");
    }
    long size = 0;
    for (int i = 0; i < hex.length(); i++) {
      int d = Character.digit(hex.charAt(i), 16);
      if (d < 0) {
        throw new Malformed(
            "chunk size '" + HttpRequestReader.abbreviate(hex) + "' (expected: hex digits)");
      }
      size = size * 16 + d;
      if (bodyLength + size > maxBodySize) {
        throw new Malformed(
            "response " + status + " chunked body over the limit of " + maxBodySize + " bytes");
      }
    }
    if (size == 0) {
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
}
