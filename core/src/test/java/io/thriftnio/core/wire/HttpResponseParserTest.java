package io.thriftnio.core.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class HttpResponseParserTest {

  private static final int LIMIT = 1000;

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  /** A whole response and what the reader made of it. */
  private static final class Read {
    final int length;
    final int status;
    final String reason;
    final boolean keepAlive;
    final String body;

    Read(HttpResponseParser r, byte[] wire, int offset, int length) {
      this.length = length;
      this.status = r.status();
      this.reason = r.reason();
      this.keepAlive = r.keepAlive();
      byte[] b = new byte[r.bodyLength()];
      r.copyBody(source(wire), offset, b);
      this.body = new String(b, StandardCharsets.ISO_8859_1);
    }
  }

  private static ByteSource source(byte[] wire) {
    return ByteSource.of(wire);
  }

  /** Reads {@code wire} from {@code offset}, its bytes arriving up to each split point in turn. */
  private static Read read(HttpResponseParser r, byte[] wire, int offset, int... splits)
      throws HttpParser.Failure {
    for (int split : splits) {
      int n = r.next(source(wire), offset, split - offset);
      if (n != HttpParser.NEED_MORE) {
        return new Read(r, wire, offset, n);
      }
    }
    int n = r.next(source(wire), offset, wire.length - offset);
    return n == HttpParser.NEED_MORE ? null : new Read(r, wire, offset, n);
  }

  /** Reads {@code wire} whole once, then again split at every byte, and one byte at a time. */
  private static Read readEverySplit(String response) throws HttpParser.Failure {
    byte[] wire = ascii(response);
    HttpResponseParser r = new HttpResponseParser(LIMIT);
    Read whole = read(r, wire, 0);
    for (int split = 1; split < wire.length; split++) {
      r.reset();
      Read again = read(r, wire, 0, split);
      assertThat(again).as("split at %d", split).isNotNull();
      assertThat(again.body).as("split at %d", split).isEqualTo(whole.body);
      assertThat(again.length).as("split at %d", split).isEqualTo(whole.length);
    }
    r.reset();
    int[] everyByte = new int[wire.length];
    for (int i = 0; i < wire.length; i++) {
      everyByte[i] = i;
    }
    Read byByte = read(r, wire, 0, everyByte);
    assertThat(byByte.body).isEqualTo(whole.body);
    return whole;
  }

  @Test
  void contentLengthBodyIsTheReply() throws Exception {
    String response =
        "HTTP/1.1 200 OK\r\nContent-Type: application/x-thrift\r\nContent-Length: 5\r\n\r\nhello";
    Read read = readEverySplit(response);
    assertThat(read.status).isEqualTo(200);
    assertThat(read.reason).isEqualTo("OK");
    assertThat(read.body).isEqualTo("hello");
    assertThat(read.length).isEqualTo(response.length());
    assertThat(read.keepAlive).isTrue();
  }

  @Test
  void chunkedBodyIsAssembled() throws Exception {
    Read read =
        readEverySplit(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "3;ext=1\r\nhel\r\n2\r\nlo\r\n0\r\nTrailer: x\r\n\r\n");
    assertThat(read.body).isEqualTo("hello");
    assertThat(read.keepAlive).isTrue();
  }

  @Test
  void emptyBodyOfAOnewayCall() throws Exception {
    Read read = readEverySplit("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
    assertThat(read.status).isEqualTo(200);
    assertThat(read.body).isEmpty();
  }

  @Test
  void interimResponsesAreSkipped() throws Exception {
    String response = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    Read read = readEverySplit(response);
    assertThat(read.status).isEqualTo(200);
    assertThat(read.body).isEqualTo("ok");
    assertThat(read.length).isEqualTo(response.length());
  }

  @Test
  void connectionCloseAndHttp10EndTheConnection() throws Exception {
    assertThat(
            readEverySplit("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx")
                .keepAlive)
        .isFalse();
    assertThat(readEverySplit("HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx").keepAlive).isFalse();
    assertThat(
            readEverySplit(
                    "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nx")
                .keepAlive)
        .isTrue();
  }

  @Test
  void bodyUpToTheEndOfTheStream() throws Exception {
    byte[] wire = ascii("HTTP/1.1 200 OK\r\n\r\nabc");
    HttpResponseParser r = new HttpResponseParser(LIMIT);
    assertThat(r.next(source(wire), 0, wire.length)).isEqualTo(HttpParser.NEED_MORE);
    assertThat(r.endOfStream(wire.length)).isEqualTo(wire.length);
    assertThat(new Read(r, wire, 0, wire.length).body).isEqualTo("abc");
    assertThat(r.keepAlive()).isFalse();
  }

  @Test
  void backToBackResponsesAreReadFromTheirOffsets() throws Exception {
    String first = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none";
    byte[] wire = ascii(first + "HTTP/1.1 500 Oops\r\nContent-Length: 3\r\n\r\ntwo");
    HttpResponseParser r = new HttpResponseParser(LIMIT);
    Read one = read(r, wire, 0);
    assertThat(one.length).isEqualTo(first.length());
    assertThat(one.body).isEqualTo("one");
    r.reset();
    Read two = read(r, wire, one.length, one.length + 5);
    assertThat(two.status).isEqualTo(500);
    assertThat(two.reason).isEqualTo("Oops");
    assertThat(two.body).isEqualTo("two");
  }

  @Test
  void bodyAtTheLimitIsReadAndOneMoreIsRefusedBeforeItArrives() throws Exception {
    String body = "x".repeat(LIMIT);
    assertThat(readEverySplit("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + body).body)
        .hasSize(LIMIT);
    assertMalformed(
        "HTTP/1.1 200 OK\r\nContent-Length: 1001\r\n\r\n", "Content-Length 1001 over the limit");
    assertMalformed(
        "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n", "over the limit");
    assertMalformed(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3e9\r\n", "over the limit");
    assertMalformed(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3e8\r\n" + body + "\r\n1\r\n",
        "over the limit");
  }

  @Test
  void bodyUpToTheEndOfTheStreamIsBounded() {
    assertMalformed("HTTP/1.1 200 OK\r\n\r\n" + "x".repeat(LIMIT + 1), "over the limit of 1000");
  }

  @Test
  void malformedResponsesAreRefused() {
    assertMalformed("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "(expected: digits)");
    assertMalformed("SSH-2.0-OpenSSH\r\n", "malformed status line 'SSH-2.0-OpenSSH'");
    assertMalformed("HTTP/2.0 200 OK\r\n", "(expected: HTTP/1.1 or HTTP/1.0)");
    assertMalformed("HTTP/1.1 2x0 OK\r\n", "malformed status line");
    assertMalformed("HTTP/1.1 200 OK\r\nno colon\r\n", "malformed header field");
    assertMalformed(
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
        "both Transfer-Encoding and Content-Length");
    assertMalformed(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n",
        "longer than its size");
  }

  @Test
  void aHeadThatNeverEndsIsBounded() {
    StringBuilder head = new StringBuilder("HTTP/1.1 200 OK\r\n");
    while (head.length() <= HttpParser.MAX_HEADER_BYTES) {
      head.append("X-Filler: ").append("y".repeat(1000)).append("\r\n");
    }
    assertMalformed(head.toString(), "header section over 65536 bytes");
    assertMalformed("HTTP/1.1 200 " + "y".repeat(HttpParser.MAX_START_LINE), "over 8192");
    StringBuilder fields = new StringBuilder("HTTP/1.1 200 OK\r\n");
    for (int i = 0; i <= HttpParser.MAX_HEADER_COUNT; i++) {
      fields.append("X: 1\r\n");
    }
    assertMalformed(fields.toString(), "more than 100 header fields");
  }

  @Test
  void endOfStreamSaysWhereTheResponseWasCut() throws Exception {
    assertCut("", "connection closed before a response");
    assertCut("HTTP/1.1 2", "in the status line after 10 bytes");
    assertCut("HTTP/1.1 200 OK\r\nContent-", "in the header section of a 200 response");
    assertCut(
        "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
        "after 3 of 10 body bytes of a 200 response");
    assertCut(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", "in the chunked body");
  }

  private static void assertCut(String response, String expected) throws Exception {
    byte[] wire = ascii(response);
    HttpResponseParser r = new HttpResponseParser(LIMIT);
    assertThat(r.next(source(wire), 0, wire.length)).isEqualTo(HttpParser.NEED_MORE);
    assertThatThrownBy(() -> r.endOfStream(wire.length))
        .isInstanceOf(HttpParser.Failure.class)
        .hasMessageContaining(expected);
  }

  private static void assertMalformed(String response, String expected) {
    byte[] wire = ascii(response);
    for (int split : new int[] {wire.length, 1, wire.length / 2}) {
      HttpResponseParser r = new HttpResponseParser(LIMIT);
      assertThatThrownBy(
              () -> {
                r.next(source(wire), 0, split);
                r.next(source(wire), 0, wire.length);
              })
          .as("split at %d", split)
          .isInstanceOf(HttpParser.Failure.class)
          .hasMessageContaining(expected);
    }
  }
}
