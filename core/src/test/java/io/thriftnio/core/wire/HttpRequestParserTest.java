package io.thriftnio.core.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.WireKind;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class HttpRequestParserTest {

  private static final int LIMIT = 1000;

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  /** What a whole request asks, as the parser read it. */
  private static final class Request {
    final boolean keepAlive;
    final int refusal;
    final HttpEnvelope envelope;
    final ByteBuffer refusalResponse;

    Request(HttpRequestParser r) {
      this.keepAlive = r.keepAlive();
      this.refusal = r.refusal();
      this.envelope = r.envelope();
      this.refusalResponse = r.refusal() != 0 ? r.refusalResponse() : null;
    }

    boolean keepAlive() {
      return keepAlive;
    }

    int refusal() {
      return refusal;
    }

    String contentType() {
      return envelope.contentType();
    }

    ByteBuffer refusalResponse() {
      return refusalResponse;
    }
  }

  /** A request and what the reader made of it. */
  private static final class Read {
    final int length;
    final byte[] body;
    final Request request;
    final boolean continued;

    Read(int length, byte[] body, Request request, boolean continued) {
      this.length = length;
      this.body = body;
      this.request = request;
      this.continued = continued;
    }
  }

  /** A request refused with an error response, and its status. */
  private static final class Refused {
    final HttpParser.Failure failure;

    Refused(HttpParser.Failure failure) {
      this.failure = failure;
    }

    int status() {
      return failure.status;
    }

    String getMessage() {
      return failure.getMessage();
    }

    ByteBuffer response() {
      return HttpResponses.error(failure.status, failure.getMessage(), false, false);
    }
  }

  /** Reads {@code wire} from {@code offset}, its bytes arriving at the given split points. */
  private static Read read(HttpRequestParser r, byte[] wire, int offset, int... splits)
      throws HttpParser.Failure {
    boolean continued = false;
    for (int split : splits) {
      assertThat(r.next(ByteSource.of(wire), offset, split)).as("split at %d", split).isEqualTo(-1);
      continued |= r.takeContinue();
      assertThat(r.inProgress()).isTrue();
    }
    int length = r.next(ByteSource.of(wire), offset, wire.length - offset);
    assertThat(length).isPositive();
    byte[] body = new byte[r.bodyLength()];
    if (r.chunked()) {
      r.copyBody(ByteSource.of(wire), offset, body);
    } else {
      System.arraycopy(wire, offset + r.bodyStart(), body, 0, body.length);
    }
    Request request = new Request(r);
    r.reset();
    return new Read(length, body, request, continued);
  }

  /** Reads {@code wire}, a whole request, cut at every split point and fed byte by byte. */
  private static Read readEverySplit(String path, String wire) throws Exception {
    byte[] bytes = ascii(wire);
    Read whole = read(new HttpRequestParser(path, LIMIT), bytes, 0);
    assertThat(whole.length).isEqualTo(bytes.length);
    HttpRequestParser reused = new HttpRequestParser(path, LIMIT);
    for (int split = 1; split < bytes.length; split++) {
      Read r = read(reused, bytes, 0, split);
      assertThat(r.length).isEqualTo(whole.length);
      assertThat(r.body).as("split at %d", split).isEqualTo(whole.body);
      assertThat(r.request.keepAlive()).isEqualTo(whole.request.keepAlive());
    }
    int[] byteByByte = new int[bytes.length - 1];
    for (int i = 0; i < byteByByte.length; i++) {
      byteByByte[i] = i + 1;
    }
    Read slow = read(new HttpRequestParser(path, LIMIT), bytes, 0, byteByByte);
    assertThat(slow.body).isEqualTo(whole.body);
    return whole;
  }

  private static Refused refusal(String wire) {
    byte[] bytes = ascii(wire);
    HttpRequestParser r = new HttpRequestParser("/", LIMIT);
    try {
      int length = r.next(ByteSource.of(bytes), 0, bytes.length);
      throw new AssertionError("not refused: " + length);
    } catch (HttpParser.Failure e) {
      return new Refused(e);
    }
  }

  private static String text(ByteBuffer b) {
    return StandardCharsets.ISO_8859_1.decode(b.duplicate()).toString();
  }

  @Test
  void contentLengthBodyAtEverySplitPoint() throws Exception {
    Read r =
        readEverySplit(
            "/thrift",
            "POST /thrift?x=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n"
                + "Content-Type: application/x-thrift\r\n\r\nhello");
    assertThat(r.body).isEqualTo(ascii("hello"));
    assertThat(r.request.keepAlive()).as("HTTP/1.1 default").isTrue();
    assertThat(r.request.refusal()).isZero();
    assertThat(r.request.contentType()).isEqualTo("application/x-thrift");
  }

  @Test
  void theRequestsFieldsReachTheEnvelopeNamesLowerCasedRepeatsJoined() throws Exception {
    Read r =
        readEverySplit(
            "/",
            "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTraceparent: 00-a-b-01\r\n"
                + "X-Tag: one\r\nConnection: keep-alive\r\nx-tag: two\r\n\r\nhello");
    assertThat(r.request.envelope.headers())
        .containsExactly(
            java.util.Map.entry("host", "h"),
            java.util.Map.entry("traceparent", "00-a-b-01"),
            java.util.Map.entry("x-tag", "one, two"));
  }

  @Test
  void chunkedBodyAtEverySplitPoint() throws Exception {
    Read r =
        readEverySplit(
            "/",
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "3;ext=1\r\nhel\r\nA\r\nlo, world!\r\n0\r\nX-Trailer: t\r\n\r\n");
    assertThat(new String(r.body, StandardCharsets.US_ASCII)).isEqualTo("hello, world!");
  }

  @Test
  void protocolContentTypeIsEchoedAndOthersGetXThrift() throws Exception {
    for (String type : new String[] {"binary", "compact", "json"}) {
      Read r =
          readEverySplit(
              "/",
              "POST / HTTP/1.1\r\nContent-Type: Application/vnd.apache.thrift."
                  + type
                  + "; charset=utf-8\r\nContent-Length: 1\r\n\r\nx");
      assertThat(r.request.contentType()).isEqualTo("application/vnd.apache.thrift." + type);
    }
    Read other = readEverySplit("/", "POST / HTTP/1.1\r\nContent-Length: 1\r\n\r\nx");
    assertThat(other.request.contentType()).isEqualTo("application/x-thrift");
  }

  @Test
  void keepAliveFollowsVersionAndConnectionHeader() throws Exception {
    assertThat(
            readEverySplit(
                    "/", "POST / HTTP/1.1\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx")
                .request
                .keepAlive())
        .isFalse();
    assertThat(
            readEverySplit("/", "POST / HTTP/1.0\r\nContent-Length: 1\r\n\r\nx")
                .request
                .keepAlive())
        .as("HTTP/1.0 closes by default")
        .isFalse();
    Read http10 =
        readEverySplit(
            "/", "POST / HTTP/1.0\r\nConnection: Keep-Alive\r\nContent-Length: 1\r\n\r\nx");
    assertThat(http10.request.keepAlive()).isTrue();
    assertThat(text(HttpResponses.ok(http10.request.envelope, 3, java.util.Map.of())))
        .as("an HTTP/1.0 peer is told the connection stays")
        .contains("Connection: keep-alive\r\n");
  }

  @Test
  void pipelinedRequestsAreReadOneAfterAnother() throws Exception {
    String one = "POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc";
    String two = "\r\nPOST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nde\r\n0\r\n\r\n";
    byte[] wire = ascii(one + two);
    HttpRequestParser r = new HttpRequestParser("/", LIMIT);
    Read first = read(r, wire, 0);
    assertThat(first.length).isEqualTo(one.length());
    assertThat(first.body).isEqualTo(ascii("abc"));
    Read second = read(r, wire, first.length, 1, 5, 30);
    assertThat(second.body).isEqualTo(ascii("de"));
    assertThat(first.length + second.length).isEqualTo(wire.length);
  }

  @Test
  void expectContinueIsDueOnceTheHeaderSectionIsAccepted() throws Exception {
    String head = "POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n";
    byte[] wire = ascii(head + "ok");
    HttpRequestParser r = new HttpRequestParser("/", LIMIT);
    assertThat(r.next(ByteSource.of(wire), 0, head.length() - 1)).isEqualTo(-1);
    assertThat(r.takeContinue()).as("not before the header section ends").isFalse();
    assertThat(r.next(ByteSource.of(wire), 0, head.length())).isEqualTo(-1);
    assertThat(r.takeContinue()).isTrue();
    assertThat(r.takeContinue()).as("once").isFalse();
    assertThat(r.next(ByteSource.of(wire), 0, wire.length)).isEqualTo(wire.length);
    assertThat(text(HttpResponses.continue100())).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");
  }

  @Test
  void expectContinueOverTheLimitIs413AndOtherExpectationsAre417() {
    assertThat(
            refusal("POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 1001\r\n\r\n")
                .status())
        .isEqualTo(413);
    assertThat(refusal("POST / HTTP/1.1\r\nExpect: magic\r\n").status()).isEqualTo(417);
  }

  @Test
  void contentLengthAtTheLimitIsReadAndAboveIt413() throws Exception {
    String body = "x".repeat(LIMIT);
    Read r =
        read(
            new HttpRequestParser("/", LIMIT),
            ascii("POST / HTTP/1.1\r\nContent-Length: " + LIMIT + "\r\n\r\n" + body),
            0);
    assertThat(r.body).hasSize(LIMIT);
    Refused over = refusal("POST / HTTP/1.1\r\nContent-Length: 1001\r\n\r\n");
    assertThat(over.status()).isEqualTo(413);
    assertThat(over.getMessage()).contains("1001").contains("1000");
    assertThat(refusal("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n").status())
        .isEqualTo(413);
    assertThat(text(over.response()))
        .startsWith("HTTP/1.1 413 Content Too Large\r\n")
        .contains("Connection: close\r\n");
  }

  @Test
  void negativeMalformedOrConflictingContentLengthIs400() {
    assertThat(refusal("POST / HTTP/1.1\r\nContent-Length: -5\r\n").status()).isEqualTo(400);
    assertThat(refusal("POST / HTTP/1.1\r\nContent-Length: 5x\r\n").status()).isEqualTo(400);
    assertThat(refusal("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n").status())
        .isEqualTo(400);
    assertThat(
            refusal("POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n")
                .status())
        .as("request smuggling")
        .isEqualTo(400);
  }

  @Test
  void chunkedBodyOverTheLimitIs413AsSoonAsItsSizeIsRead() {
    Refused e =
        refusal(
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n200\r\n"
                + "x".repeat(512)
                + "\r\n3e9\r\n");
    assertThat(e.status()).isEqualTo(413);
    assertThat(
            refusal("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n")
                .status())
        .isEqualTo(413);
    assertThat(refusal("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n").status()).isEqualTo(501);
  }

  @Test
  void headerLimitsAreEnforcedBeforeTheSectionEnds() {
    assertThat(refusal("POST /" + "a".repeat(HttpParser.MAX_START_LINE)).status())
        .as("a request line that never ends")
        .isEqualTo(414);
    StringBuilder many = new StringBuilder("POST / HTTP/1.1\r\n");
    for (int i = 0; i <= HttpParser.MAX_HEADER_COUNT; i++) {
      many.append("X-").append(i).append(": v\r\n");
    }
    assertThat(refusal(many.toString()).status()).isEqualTo(431);
    StringBuilder endless = new StringBuilder("POST / HTTP/1.1\r\n");
    while (endless.length() <= HttpParser.MAX_HEADER_BYTES) {
      endless.append("X-Long: ").append("v".repeat(1000)).append("\r\n");
    }
    assertThat(refusal(endless.toString()).status()).isEqualTo(431);
    assertThat(refusal("POST / HTTP/1.1\r\nX: " + "v".repeat(70_000)).status())
        .as("one field that never ends")
        .isEqualTo(431);
  }

  @Test
  void malformedRequestsAre400AndOtherVersions505() {
    assertThat(refusal("POST /\r\n").status()).isEqualTo(400);
    assertThat(refusal("POST  / HTTP/1.1\r\n").status()).isEqualTo(400);
    assertThat(refusal("POST / HTTP/1.1\r\nNo colon\r\n").status()).isEqualTo(400);
    assertThat(refusal("POST / HTTP/1.1\r\nContent-Length : 1\r\n").status()).isEqualTo(400);
    assertThat(refusal("POST / HTTP/2.0\r\n").status()).isEqualTo(505);
    assertThat(refusal("POST / HTTP/1.1\r\n\r\n").status()).as("no body").isEqualTo(400);
  }

  @Test
  void otherMethodsAre405AndOtherPaths404() throws Exception {
    Read get = readEverySplit("/thrift", "GET /thrift HTTP/1.1\r\nHost: h\r\n\r\n");
    assertThat(get.request.refusal()).isEqualTo(405);
    assertThat(get.request.keepAlive()).as("no body: the connection stays usable").isTrue();
    assertThat(text(get.request.refusalResponse()))
        .startsWith("HTTP/1.1 405 Method Not Allowed\r\nAllow: POST\r\n")
        .doesNotContain("Connection: close");
    Read other = readEverySplit("/thrift", "POST /other HTTP/1.1\r\nContent-Length: 2\r\n\r\n");
    assertThat(other.request.refusal()).isEqualTo(404);
    assertThat(other.request.keepAlive()).as("its body is not read: close").isFalse();
    assertThat(text(other.request.refusalResponse()))
        .startsWith("HTTP/1.1 404 Not Found\r\n")
        .contains("Connection: close");
  }

  @Test
  void okHeadCarriesTypeLengthAndClose() throws Exception {
    Read r = readEverySplit("/", "POST / HTTP/1.0\r\nContent-Length: 1\r\n\r\nx");
    assertThat(text(HttpResponses.ok(r.request.envelope, 42, java.util.Map.of())))
        .isEqualTo(
            "HTTP/1.1 200 OK\r\nContent-Type: application/x-thrift\r\nContent-Length: 42\r\n"
                + "Connection: close\r\n\r\n");
  }

  @Test
  void upperCaseFirstBytesAreHttpWhenAccepted() {
    EnumSet<WireKind> all = EnumSet.allOf(WireKind.class);
    for (char c : "PGHODCT".toCharArray()) {
      assertThat(detect((byte) c, all)).isEqualTo(HttpRequestDecoder.KIND);
    }
    assertThat(detect((byte) 'P', EnumSet.of(WireKind.FRAMED))).isEqualTo(FramedDecoder.KIND);
    EnumSet<WireKind> noHeader = EnumSet.complementOf(EnumSet.of(WireKind.HEADER));
    assertThat(detect((byte) 0, noHeader)).isEqualTo(FramedDecoder.KIND);
    assertThat(detect((byte) '[', all)).isEqualTo(UnframedDecoder.JSON);
    assertThat(detect((byte) 'p', EnumSet.of(WireKind.HTTP))).isNull();
  }

  /**
   * A {@code GET} on the health path is answered 200 while serving and 503 after, keeping the
   * connection; another path or method keeps its 405, and a {@code POST} there is no probe.
   */
  @Test
  void aGetOnTheHealthPathIsAProbeAnsweredFromServing() throws Exception {
    AtomicBoolean serving = new AtomicBoolean(true);
    HttpRequestParser r = new HttpRequestParser("/thrift", LIMIT, "/health", serving::get);
    byte[] get = ascii("GET /health?verbose HTTP/1.1\r\nHost: h\r\n\r\n");
    Read up = read(r, get, 0);
    assertThat(up.length).isEqualTo(get.length);
    assertThat(up.request.refusal()).isEqualTo(200);
    assertThat(text(up.request.refusalResponse()))
        .startsWith("HTTP/1.1 200 OK\r\n")
        .doesNotContain("Connection: close")
        .endsWith("\r\n\r\nserving\n");
    assertThat(up.request.keepAlive()).isTrue();
    serving.set(false);
    Read down = read(r, get, 0);
    assertThat(down.request.refusal()).isEqualTo(503);
    assertThat(text(down.request.refusalResponse()))
        .startsWith("HTTP/1.1 503 Service Unavailable\r\n")
        .endsWith("\r\n\r\ndraining\n");
    assertThat(read(r, ascii("GET /thrift HTTP/1.1\r\n\r\n"), 0).request.refusal()).isEqualTo(405);
    assertThat(read(r, ascii("GET /healthz HTTP/1.1\r\n\r\n"), 0).request.refusal()).isEqualTo(405);
    assertThat(read(r, ascii("HEAD /health HTTP/1.1\r\n\r\n"), 0).request.refusal()).isEqualTo(405);
    HttpRequestParser same = new HttpRequestParser("/rpc", LIMIT, "/rpc", serving::get);
    Read post = read(same, ascii("POST /rpc HTTP/1.1\r\nContent-Length: 2\r\n\r\nok"), 0);
    assertThat(post.request.refusal()).as("a call on a shared path").isZero();
    assertThat(post.body).isEqualTo(ascii("ok"));
    assertThat(read(new HttpRequestParser("/", LIMIT), get, 0).request.refusal())
        .as("no health path: as before")
        .isEqualTo(405);
  }

  private static WireFormat detect(byte first, EnumSet<WireKind> accepted) {
    return new Sniffer(WireSettings.of(LIMIT, accepted, null, "/"))
        .detect(ByteSource.of(new byte[] {first}), 0, 1);
  }
}
