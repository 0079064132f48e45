package io.thriftnio.core.wire;

import java.util.Locale;

/**
 * The header fields of one HTTP message: their syntax and count, and what the fields every message
 * may carry say ({@code Content-Length}, {@code Transfer-Encoding}, {@code Connection}). Other
 * fields go to the parser's hook.
 */
final class HttpFields {

  private final HttpParser parser;

  private int count;

  /** The declared {@code Content-Length}, or -1. */
  long contentLength = -1;

  /** {@code Transfer-Encoding: chunked}. */
  boolean chunked;

  /** {@code Connection: close}. */
  boolean closeSaid;

  /** {@code Connection: keep-alive}. */
  boolean keepAliveSaid;

  HttpFields(HttpParser parser) {
    this.parser = parser;
  }

  /** Reads one field line; a trailer's is checked and counted, and carries nothing used. */
  void parse(String text, boolean trailer) throws HttpParser.Failure {
    if (++count > HttpParser.MAX_HEADER_COUNT) {
      throw new HttpParser.Failure(
          431, "more than " + HttpParser.MAX_HEADER_COUNT + " header fields");
    }
    int colon = text.indexOf(':');
    if (colon <= 0) {
      throw new HttpParser.Failure(
          400, "malformed header field '" + HttpLines.abbreviate(text) + "'");
    }
    String name = text.substring(0, colon);
    for (int i = 0; i < name.length(); i++) {
      if (!HttpLines.isTokenChar(name.charAt(i))) {
        // RFC 9112 5.1: whitespace before the colon is refused (request smuggling).
        throw new HttpParser.Failure(
            400, "malformed header field name '" + HttpLines.abbreviate(name) + "'");
      }
    }
    if (trailer) {
      return; // trailers are read and bounded, and carry nothing a Thrift message needs
    }
    String value = text.substring(colon + 1).trim();
    String lower = name.toLowerCase(Locale.ROOT);
    switch (lower) {
      case "content-length":
        contentLength(value);
        break;
      case "transfer-encoding":
        if (!value.equalsIgnoreCase("chunked") || chunked) {
          throw new HttpParser.Failure(
              501, "Transfer-Encoding '" + HttpLines.abbreviate(value) + "' (expected: chunked)");
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
        parser.field(lower, value);
        break;
    }
  }

  /**
   * Digits first, then the number of them: {@code 1e3} is malformed (400) whatever its length, and
   * 19 digits are over any limit (413) before they could overflow.
   */
  private void contentLength(String value) throws HttpParser.Failure {
    if (value.isEmpty() || !HttpLines.allDigits(value)) {
      throw new HttpParser.Failure(
          400, "Content-Length '" + HttpLines.abbreviate(value) + "' (expected: digits)");
    }
    if (value.length() > 18) {
      throw new HttpParser.Failure(
          413,
          parser.bodyPrefix()
              + "Content-Length "
              + HttpLines.abbreviate(value)
              + " over the limit of "
              + parser.maxBodySize
              + " bytes");
    }
    long length = Long.parseLong(value);
    if (contentLength >= 0 && contentLength != length) {
      throw new HttpParser.Failure(
          400,
          "Content-Length "
              + contentLength
              + " and "
              + length
              + " in one "
              + (parser.startLineName.startsWith("request") ? "request" : "response"));
    }
    contentLength = length;
  }

  void reset() {
    count = 0;
    contentLength = -1;
    chunked = false;
    closeSaid = false;
    keepAliveSaid = false;
  }
}
