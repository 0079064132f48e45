package io.thriftnio.core.wire;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The lines of an HTTP head: finds each line's end by copying the input a run at a time into a
 * buffer of its own and scanning it there (one bulk read per run, never a read per byte), and turns
 * the line into text. Also the syntax checks HTTP's lines share.
 */
final class HttpLines {

  /** {@link #find}: the line's end is not here yet. */
  static final int NOT_YET = -1;

  /** {@link #find}: the line runs past its limit. */
  static final int TOO_LONG = -2;

  /** Bytes copied from the input at a time while a line end is looked for. */
  private static final int RUN = 256;

  /** The current line's bytes, copied so far. */
  private byte[] line = new byte[RUN];

  /**
   * Looks for the end of the line that starts at {@code lineStart}, scanning on from {@code from}.
   *
   * @param in the connection's bytes
   * @param start the index of the message's first byte
   * @param lineStart the line's offset in the message
   * @param from the offset to scan from: bytes before it were scanned by an earlier call
   * @param available the bytes buffered from {@code start}
   * @param limit the longest line accepted, in bytes
   * @return the offset of the line's LF, {@link #NOT_YET} (then every byte up to {@code available}
   *     was scanned), or {@link #TOO_LONG}
   */
  int find(ByteSource in, int start, int lineStart, int from, int available, int limit) {
    for (int pos = from; pos < available; ) {
      int n = Math.min(available - pos, RUN);
      int at = pos - lineStart;
      if (at + n > line.length) {
        line = Arrays.copyOf(line, Math.max(line.length * 2, at + n));
      }
      in.getBytes(start + pos, line, at, n);
      for (int i = at; i < at + n; i++) {
        if (line[i] == '\n') {
          return lineStart + i;
        }
        if (i > limit) {
          return TOO_LONG;
        }
      }
      pos += n;
    }
    return available - lineStart > limit ? TOO_LONG : NOT_YET;
  }

  /**
   * The text of the line found, without its CR LF.
   *
   * @param length the offset of its LF from the line's start
   * @throws HttpParser.Failure if the line holds a CR or a NUL
   */
  String text(int length) throws HttpParser.Failure {
    int end = length;
    if (end > 0 && line[end - 1] == '\r') {
      end--;
    }
    for (int i = 0; i < end; i++) {
      if (line[i] == '\r' || line[i] == 0) {
        throw new HttpParser.Failure(400, "stray CR or NUL in a line");
      }
    }
    return new String(line, 0, end, StandardCharsets.ISO_8859_1);
  }

  /** Drops a buffer that a long line grew. */
  void shrink() {
    if (line.length > 16 * RUN) {
      line = new byte[RUN];
    }
  }

  // ---- syntax ----

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
