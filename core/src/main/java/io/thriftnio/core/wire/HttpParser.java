package io.thriftnio.core.wire;

/**
 * HTTP/1.1 message syntax, for requests (servers) and responses (clients) alike: the start line
 * (through a hook: a request line or a status line), header fields, and a body delimited by {@code
 * Content-Length} or chunked, under one set of limits. Incremental: it keeps its place between
 * reads and reads nothing twice. The caller consumes nothing before {@link #next} says a message is
 * whole, then takes its body and calls {@link #reset}.
 *
 * <pre>
 * POST /path HTTP/1.1\r\n   or   HTTP/1.1 200 OK\r\n    start line  (at most MAX_START_LINE bytes)
 * Content-Length: 21\r\n                                header fields (at most MAX_HEADER_COUNT, and
 * \r\n                                                   with the start line MAX_HEADER_BYTES in all)
 * 80 01 00 01 ...                                       the body: at most maxBodySize bytes
 * </pre>
 *
 * <p>Every limit is checked as soon as the bytes that break it are here: a {@code Content-Length}
 * above {@code maxBodySize} as the header section ends, before anything waits for the body, a chunk
 * whose size would carry the body over the limit as soon as its size line is read. Nothing is
 * allocated for a body before all of it has arrived. Lines are copied out of the input a run at a
 * time and scanned in place; a body is copied in bulk, a run per chunk.
 */
abstract class HttpParser {

  /** {@link #next}: the message is not whole yet. */
  static final int NEED_MORE = -1;

  /** The longest start line accepted, in bytes, without its line end. */
  static final int MAX_START_LINE = 8192;

  /** The most header fields accepted in one message (trailers included). */
  static final int MAX_HEADER_COUNT = 100;

  /**
   * The most bytes of a message outside its body data: the start line, the header fields and, for a
   * chunked body, the chunk size lines and trailers. A peer that never ends its header section is
   * refused once it has sent this much.
   */
  static final int MAX_HEADER_BYTES = 65_536;

  /** A message that breaks HTTP's syntax or a limit; the stream cannot be read further. */
  static final class Failure extends Exception {
    private static final long serialVersionUID = 1L;

    /** The status of a request's answer: 400, 413, 414, 417, 431, 501 or 505. */
    final int status;

    Failure(int status, String reason) {
      super(reason, null, false, false);
      this.status = status;
    }
  }

  /** Where in the message the parser is. */
  enum State {
    START_LINE,
    HEADERS,
    BODY,
    BODY_TO_EOF,
    CHUNK_SIZE,
    CHUNK_DATA,
    CHUNK_END,
    TRAILERS,
    DONE
  }

  final int maxBodySize;

  /** {@code "request line"} or {@code "status line"}, for the messages. */
  final String startLineName;

  State state = State.START_LINE;

  /** Offset from the message's first byte of the next byte to read. */
  int pos;

  /** Offset of the current line's first byte. */
  private int lineStart;

  private final HttpLines lines = new HttpLines();

  /** Bytes outside body data so far. */
  private int overhead;

  /** The header fields read, and what they say. */
  final HttpFields fields = new HttpFields(this);

  /** Whether the start line said HTTP/1.0. */
  boolean http10;

  /** Where the body lies; its runs are added as they are found. */
  final HttpBody body = new HttpBody();

  /** For a Content-Length body: its length, set as the header section ends. */
  private int declaredLength;

  private int chunkLeft;

  HttpParser(int maxBodySize, String startLineName) {
    this.maxBodySize = maxBodySize;
    this.startLineName = startLineName;
  }

  /**
   * Reads on from where the last call stopped.
   *
   * @param in the connection's buffered bytes
   * @param start index of the message's first byte; the same bytes on every call for one message
   * @param available bytes buffered from {@code start}
   * @return the message's length in bytes (head and body) once it is whole, else {@link #NEED_MORE}
   * @throws Failure when the message breaks HTTP's syntax or a limit
   */
  final int next(ByteSource in, int start, int available) throws Failure {
    while (true) {
      switch (state) {
        case START_LINE:
        case HEADERS:
        case CHUNK_SIZE:
        case CHUNK_END:
        case TRAILERS:
          {
            int end = lineEnd(in, start, available);
            if (end < 0) {
              return NEED_MORE;
            }
            String text = lines.text(end - lineStart);
            pos = end + 1;
            overhead += pos - lineStart;
            lineStart = pos;
            if (overhead > MAX_HEADER_BYTES) {
              throw headerSectionTooLarge();
            }
            onLine(text);
            break;
          }
        case BODY:
          if (available - pos < declaredLength) {
            return NEED_MORE;
          }
          body.add(pos, declaredLength);
          pos += declaredLength;
          state = State.DONE;
          break;
        case BODY_TO_EOF:
          if (available - pos > maxBodySize) {
            throw new Failure(
                413,
                bodyPrefix()
                    + "body (up to the end of the stream) over the limit of "
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
        whole();
        return pos;
      }
    }
  }

  /** Whether some bytes of a message have been read and it is not whole yet. */
  final boolean inProgress() {
    return state != State.DONE && pos > 0;
  }

  /** Whether the whole message's body was chunked. */
  final boolean chunked() {
    return fields.chunked;
  }

  /** Offset of the body from the message's first byte; for a body that is not chunked. */
  final int bodyStart() {
    return body.start();
  }

  /** The body's length in bytes. */
  final int bodyLength() {
    return body.length();
  }

  /** A {@code Content-Length} body's declared length, once the header section is whole. */
  final int declaredLength() {
    return declaredLength;
  }

  /** Copies the body's first {@code dst.length} bytes (at most {@link #bodyLength()}). */
  final void copyBody(ByteSource in, int start, byte[] dst) {
    body.copy(in, start, dst);
  }

  /** Forgets the message taken; the next one starts at the next {@code start}. */
  void reset() {
    resetHead();
    pos = 0;
    lineStart = 0;
    overhead = 0;
    lines.shrink();
  }

  /** Forgets the head read so far; the message goes on at {@link #pos} with a new start line. */
  void resetHead() {
    state = State.START_LINE;
    fields.reset();
    http10 = false;
    body.reset();
    declaredLength = 0;
    chunkLeft = 0;
  }

  // ---- the hooks ----

  /**
   * A start line (possibly empty); true once the header fields follow, false to read another (an
   * empty line a request may lead with).
   */
  abstract boolean startLine(String line) throws Failure;

  /** A header field the common syntax does not handle; {@code name} in lower case. */
  abstract void field(String name, String value) throws Failure;

  /** The header section ended: set {@link #state} to the body's delimiting, or to DONE. */
  abstract void headersDone() throws Failure;

  /** A chunked body of no bytes ended; by default accepted. */
  void emptyChunkedBody() throws Failure {}

  /** The message is whole. */
  void whole() {}

  /** What body messages start with, e.g. {@code "response 500 "}; empty for requests. */
  abstract String bodyPrefix();

  // ---- lines ----

  private int lineEnd(ByteSource in, int start, int available) throws Failure {
    int limit = state == State.START_LINE ? MAX_START_LINE : MAX_HEADER_BYTES - overhead;
    int end = lines.find(in, start, lineStart, pos, available, limit);
    if (end == HttpLines.TOO_LONG) {
      throw state == State.START_LINE
          ? new Failure(414, startLineName + " over " + limit + " bytes")
          : headerSectionTooLarge();
    }
    if (end == HttpLines.NOT_YET) {
      pos = available;
    }
    return end;
  }

  private Failure headerSectionTooLarge() {
    return new Failure(
        431,
        "header section over "
            + MAX_HEADER_BYTES
            + " bytes ("
            + startLineName
            + ", fields, chunk lines)");
  }

  private void onLine(String text) throws Failure {
    switch (state) {
      case START_LINE:
        if (startLine(text)) {
          state = State.HEADERS;
        }
        return;
      case HEADERS:
        if (text.isEmpty()) {
          headersDone();
        } else {
          fields.parse(text, false);
        }
        return;
      case CHUNK_SIZE:
        chunkSize(text);
        return;
      case CHUNK_END:
        if (!text.isEmpty()) {
          throw new Failure(400, "chunk data longer than its size");
        }
        state = State.CHUNK_SIZE;
        return;
      case TRAILERS:
        if (text.isEmpty()) {
          state = State.DONE;
        } else {
          fields.parse(text, true);
        }
        return;
      default:
        throw new AssertionError(state);
    }
  }

  /** Refuses a {@code Content-Length} above the limit, once the header section is whole. */
  final void checkContentLength() throws Failure {
    if (fields.contentLength > maxBodySize) {
      throw new Failure(
          413,
          bodyPrefix()
              + "Content-Length "
              + fields.contentLength
              + " over the limit of "
              + maxBodySize
              + " bytes");
    }
  }

  // ---- chunks ----

  private void chunkSize(String text) throws Failure {
    int semi = text.indexOf(';');
    String hex = (semi < 0 ? text : text.substring(0, semi)).trim();
    if (hex.isEmpty()) {
      throw new Failure(400, "empty chunk size line");
    }
    long size = 0;
    for (int i = 0; i < hex.length(); i++) {
      int d = Character.digit(hex.charAt(i), 16);
      if (d < 0) {
        throw new Failure(
            400, "chunk size '" + HttpLines.abbreviate(hex) + "' (expected: hex digits)");
      }
      size = size * 16 + d;
      if (body.length() + size > maxBodySize) {
        throw new Failure(
            413, bodyPrefix() + "chunked body over the limit of " + maxBodySize + " bytes");
      }
    }
    if (size == 0) {
      if (body.length() == 0) {
        emptyChunkedBody();
      }
      state = State.TRAILERS;
      return;
    }
    body.add(pos, (int) size);
    chunkLeft = (int) size;
    state = State.CHUNK_DATA;
  }

  /** Sets the body's delimiting once the header section is whole: chunked, or a length. */
  final void bodyFollows(long length) {
    if (fields.chunked) {
      state = State.CHUNK_SIZE;
    } else {
      declaredLength = (int) length;
      state = State.BODY;
    }
  }
}
