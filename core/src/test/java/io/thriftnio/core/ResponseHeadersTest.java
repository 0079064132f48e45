package io.thriftnio.core;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.internal.server.CallPath;
import io.thriftnio.core.internal.server.CallSequencer;
import io.thriftnio.core.internal.server.ProcessorInvoker;
import io.thriftnio.core.util.internal.ServerCounters;
import io.thriftnio.core.wire.ByteSource;
import io.thriftnio.core.wire.Decoded;
import io.thriftnio.core.wire.ServerCodec;
import io.thriftnio.core.wire.THeaderFrames;
import io.thriftnio.core.wire.WireEvent;
import io.thriftnio.core.wire.WireSettings;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ServerCallContext#setResponseHeader}: what the handler and the interceptors set leaves as
 * THeader info headers and as HTTP header fields, is kept and sent nowhere on framed connections,
 * and is checked when set.
 */
@Timeout(10)
class ResponseHeadersTest {

  private static final TProtocolFactory BINARY = new TBinaryProtocol.Factory();
  private static final int MAX = 4096;

  private final ServerCounters counters = new ServerCounters();
  private final MemoryConnection connection = new MemoryConnection();

  @AfterEach
  void everyRequestReleasedOnce() {
    assertThat(connection.allReleasedOnce()).as("every request released exactly once").isTrue();
  }

  /** Sets {@code before=1} in beforeCall and {@code after=2} in afterCall. */
  private static final class Setting implements ServerInterceptor {
    @Override
    public void beforeCall(ServerCallContext context) {
      context.setResponseHeader("before", "1");
    }

    @Override
    public void afterCall(ServerCallContext context, CallOutcome outcome, long nanos) {
      context.setResponseHeader("after", "2");
    }
  }

  private CallSequencer server() {
    ProcessorInvoker invoker =
        ProcessorInvoker.of(new MiniService.Sync(), BINARY, BINARY, MAX)
            .withInterceptors(List.of(new Setting()));
    return CallPath.builder(invoker, counters).maxCallsInFlight(100).build().open(connection);
  }

  private void deliver(CallSequencer seq, WireKind kind, byte[] bytes) {
    ServerCodec codec =
        new ServerCodec(
            WireSettings.of(MAX, EnumSet.of(kind), null, "/"),
            InetSocketAddress.createUnresolved("test-peer", 0));
    WireEvent event = codec.next(ByteSource.of(bytes), 0, bytes.length);
    assertThat(event).isEqualTo(WireEvent.MESSAGE);
    Decoded d = codec.decoded();
    ByteBuffer payload =
        d.payloadArray() != null
            ? ByteBuffer.wrap(d.payloadArray())
            : ByteBuffer.wrap(bytes, d.payloadOffset(), d.payloadLength()).slice();
    seq.onRequest(payload, connection.newRequest(), d.envelope());
    seq.readComplete();
  }

  private static byte[] message(String method, int seqid, String text) throws Exception {
    ByteBuffer m = MiniService.call(BINARY, method, seqid, text);
    byte[] bytes = new byte[m.remaining()];
    m.get(bytes);
    return bytes;
  }

  private byte[] onlySent() {
    assertThat(connection.sent).hasSize(1);
    ByteBuffer sent = connection.sent.get(0);
    byte[] bytes = new byte[sent.remaining()];
    sent.duplicate().get(bytes);
    return bytes;
  }

  @Test
  void aTHeaderReplyCarriesWhatTheInterceptorsAndTheHandlerSetAsInfoHeaders() throws Exception {
    CallSequencer seq = server();
    deliver(
        seq,
        WireKind.HEADER,
        THeaderFrames.request().seqId(4).frame(message("respond", 4, "x-trace=abc 123")));

    THeaderFrames.Reply reply = THeaderFrames.read(onlySent());
    assertThat(reply.headers)
        .containsExactly(
            Map.entry("before", "1"), Map.entry("x-trace", "abc 123"), Map.entry("after", "2"));
    assertThat(reply.seqId).isEqualTo(4);
    assertThat(MiniService.decode(BINARY, ByteBuffer.wrap(frameOf(reply.message))).success())
        .isEqualTo("ok");
  }

  @Test
  void aCompressedTHeaderReplyKeepsItsHeadersReadable() throws Exception {
    CallSequencer seq = server();
    deliver(
        seq,
        WireKind.HEADER,
        THeaderFrames.request().transform(1).frame(message("respond", 1, "k=v")));

    THeaderFrames.Reply reply = THeaderFrames.read(onlySent());
    assertThat(reply.transforms).containsExactly(1);
    assertThat(reply.headers).containsEntry("k", "v").containsEntry("after", "2");
  }

  @Test
  void anHttpReplyCarriesThemAsHeaderFields() throws Exception {
    CallSequencer seq = server();
    byte[] body = message("respond", 1, "X-Trace=abc");
    byte[] head =
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-thrift\r\nContent-Length: "
                + body.length
                + "\r\n\r\n")
            .getBytes(US_ASCII);
    byte[] request = ByteBuffer.allocate(head.length + body.length).put(head).put(body).array();
    deliver(seq, WireKind.HTTP, request);

    String response = new String(onlySent(), US_ASCII);
    String responseHead = response.substring(0, response.indexOf("\r\n\r\n") + 2);
    assertThat(responseHead)
        .startsWith("HTTP/1.1 200 OK\r\n")
        .contains("\r\nbefore: 1\r\n", "\r\nX-Trace: abc\r\n", "\r\nafter: 2\r\n");
  }

  @Test
  void aFramedReplyIsTheSameWithHeadersSet() throws Exception {
    CallSequencer seq = server();
    seq.onRequest(MiniService.call(BINARY, "respond", 9, "k=v"), connection.newRequest());
    seq.readComplete();
    MiniService.Reply reply = MiniService.decode(BINARY, connection.sent.get(0));
    assertThat(reply.header().seqid).isEqualTo(9);
    assertThat(reply.success()).isEqualTo("ok");
  }

  private static byte[] frameOf(byte[] message) {
    return ByteBuffer.allocate(4 + message.length).putInt(message.length).put(message).array();
  }

  // ---- checks when set ------------------------------------------------------------------------

  private static ServerCallContext context() {
    return new ServerCallContext(null, 1, System.nanoTime(), 0, "m", 1, (byte) 1, BINARY, Map.of());
  }

  @Test
  void aValueWithCrLfIsRefusedWithTheMessageFormat() {
    assertThatThrownBy(() -> context().setResponseHeader("x", "a\r\nb"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "value of x: \"a\\r\\nb\" (expected: printable ASCII, spaces and tabs; no CR, LF or"
                + " other control character)");
  }

  @Test
  void aNameThatIsNoTokenIsRefused() {
    assertThatThrownBy(() -> context().setResponseHeader("a b", "v"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("name: \"a b\" (expected: an HTTP token");
    assertThatThrownBy(() -> context().setResponseHeader("", "v"))
        .hasMessageStartingWith("name: \"\" (expected: an HTTP token");
    assertThatThrownBy(() -> context().setResponseHeader("caf\u00e9", "v"))
        .hasMessageStartingWith("name: \"caf\\u00e9\"");
  }

  @Test
  void theFieldsTheServerWritesItselfAreRefusedInAnyCase() {
    for (String name :
        List.of("Content-Length", "content-type", "CONNECTION", "Transfer-Encoding")) {
      assertThatThrownBy(() -> context().setResponseHeader(name, "1"))
          .as(name)
          .hasMessageContaining("which the server writes itself");
    }
  }

  @Test
  void oneHundredHeadersAreAcceptedAndTheFirstMoreIsRefused() {
    ServerCallContext c = context();
    for (int i = 0; i < 100; i++) {
      c.setResponseHeader("h" + i, "v");
    }
    c.setResponseHeader("h0", "replaced"); // a replacement adds none
    assertThatThrownBy(() -> c.setResponseHeader("h100", "v"))
        .hasMessage(
            "response headers: 101 with h100 (expected: <= 100, what THeader and HTTP peers read)");
    assertThat(c.responseHeaders()).hasSize(100).containsEntry("h0", "replaced");
    c.setResponseHeader("h1", null);
    c.setResponseHeader("h100", "v"); // room again
    assertThat(c.responseHeaders()).hasSize(100);
  }

  @Test
  void sixtyFourKibibytesOfNamesAndValuesAreAcceptedAndOneByteMoreIsRefused() {
    ServerCallContext c = context();
    c.setResponseHeader("a", "x".repeat(65_536 - 1 - 1 - 1)); // a + value + b + 1 value byte
    c.setResponseHeader("b", "y");
    assertThatThrownBy(() -> c.setResponseHeader("b", "yy"))
        .hasMessage(
            "response headers: 65537 bytes of names and values with b (expected: <= 65536, what"
                + " THeader and HTTP peers read)");
    assertThat(c.responseHeaders()).containsEntry("b", "y");
  }
}
