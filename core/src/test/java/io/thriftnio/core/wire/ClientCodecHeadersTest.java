package io.thriftnio.core.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.WireKind;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TProtocolException;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client codec's headers: THeader request heads read back by the server's own decoder (protocol
 * id from the message, info headers, client_timeout, the out-of-order flag), messages THeader
 * cannot name refused, THeader replies with their headers and sequence id, their limits; HTTP
 * request header fields and their refusals, HTTP response fields lower-cased.
 */
@Timeout(30)
class ClientCodecHeadersTest {

  private static final int MAX = 1000;
  private static final InetSocketAddress SERVER = InetSocketAddress.createUnresolved("h", 9);
  private static final byte[] BINARY_MESSAGE = {(byte) 0x80, 0x01, 0, 1, 0, 0, 0, 0, 0, 0, 0, 5};
  private static final byte[] COMPACT_MESSAGE = {(byte) 0x82, 0x21, 5, 0};

  private static ClientCodec codec(WireKind kind) {
    return ClientCodec.of(
        ClientOptions.builder().wireKind(kind).maxFrameSize(MAX).build(), SERVER, "h:9");
  }

  /** The request as a server's THeader decoder reads it. */
  private static Decoded serverReads(byte[] head, byte[] message) {
    byte[] wire = Arrays.copyOf(head, head.length + message.length);
    System.arraycopy(message, 0, wire, head.length, message.length);
    Decoded d = new Decoded();
    assertThat(
            new THeaderDecoder(MAX, InetSocketAddress.createUnresolved("client", 0))
                .decode(ByteSource.of(wire), 0, wire.length, d))
        .isEqualTo(WireEvent.MESSAGE);
    assertThat(d.consumed()).isEqualTo(wire.length);
    assertThat(Arrays.copyOfRange(wire, d.payloadOffset(), d.payloadOffset() + d.payloadLength()))
        .isEqualTo(message);
    return d;
  }

  @Test
  void theaderHeadNamesTheProtocolAndCarriesHeadersAndTheTimeout() throws TException {
    ClientCodec codec = codec(WireKind.HEADER);
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("tenant", "acme");
    headers.put("ünïcode", "välue");
    byte[] head = codec.head(ByteBuffer.wrap(BINARY_MESSAGE), false, headers, 41, 250);
    THeaderEnvelope binary = (THeaderEnvelope) serverReads(head, BINARY_MESSAGE).envelope();
    assertThat(binary.protocol()).isSameAs(THeaderEnvelope.BINARY);
    assertThat(binary.seqId()).isEqualTo(41);
    assertThat(binary.flags()).isEqualTo(THeaderHead.FLAG_SUPPORT_OUT_OF_ORDER);
    assertThat(binary.headers())
        .containsExactly(
            Map.entry("tenant", "acme"),
            Map.entry("ünïcode", "välue"),
            Map.entry(ServerCallContext.CLIENT_TIMEOUT_HEADER, "250"));

    byte[] compactHead = codec.head(ByteBuffer.wrap(COMPACT_MESSAGE), false, Map.of(), 42, 0);
    THeaderEnvelope compact =
        (THeaderEnvelope) serverReads(compactHead, COMPACT_MESSAGE).envelope();
    assertThat(compact.protocol()).isSameAs(THeaderEnvelope.COMPACT);
    assertThat(compact.headers()).isEmpty();
  }

  @Test
  void messagesTheaderCannotNameAreRefusedBeforeSending() {
    ClientCodec codec = codec(WireKind.HEADER);
    byte[] json = "[1,\"echo\",1,0,{}]".getBytes(StandardCharsets.US_ASCII);
    byte[] nonStrict = {0, 0, 0, 4, 'e', 'c', 'h', 'o', 1, 0, 0, 0, 0};
    assertThat(codec.refusal(ByteBuffer.wrap(json), Map.of()))
        .isInstanceOf(TProtocolException.class)
        .hasMessage(
            "THeader request to h:9 not sent: the message starts 5b, JSON (expected: 80 01, strict"
                + " binary, or 82, compact; THeader has no protocol id for JSON or non-strict"
                + " binary)");
    assertThat(codec.refusal(ByteBuffer.wrap(nonStrict), Map.of()))
        .hasMessageContaining("the message starts 00 (expected: 80 01");
    assertThat(codec.refusal(ByteBuffer.wrap(BINARY_MESSAGE), Map.of())).isNull();
    assertThatThrownBy(() -> codec.head(ByteBuffer.wrap(json), false, Map.of(), 1, 1))
        .isInstanceOf(TProtocolException.class);
  }

  @Test
  void theaderReplyGivesItsPayloadHeadersAndSequenceId() {
    ClientCodec codec = codec(WireKind.HEADER);
    byte[] reply =
        THeaderFrames.request().seqId(7).flags(1).header("served-by", "b").frame(BINARY_MESSAGE);
    assertThat(codec.next(ByteSource.of(reply), 0, reply.length - 1))
        .isEqualTo(WireEvent.NEED_MORE);
    assertThat(codec.next(ByteSource.of(reply), 0, reply.length)).isEqualTo(WireEvent.MESSAGE);
    Decoded d = codec.decoded();
    assertThat(Arrays.copyOfRange(reply, d.payloadOffset(), d.payloadOffset() + d.payloadLength()))
        .isEqualTo(BINARY_MESSAGE);
    assertThat(codec.replySeqId()).isEqualTo(7);
    assertThat(codec.replyHeaders()).containsExactly(Map.entry("served-by", "b"));

    byte[] zlib = THeaderFrames.request().seqId(8).transform(1).frame(BINARY_MESSAGE);
    ClientCodec second = codec(WireKind.HEADER);
    assertThat(second.next(ByteSource.of(zlib), 0, zlib.length)).isEqualTo(WireEvent.MESSAGE);
    assertThat(second.decoded().payloadArray()).isEqualTo(BINARY_MESSAGE);
    assertThat(second.replySeqId()).isEqualTo(8);
  }

  @Test
  void theaderRepliesAreBoundedLikeRequests() {
    ClientCodec tooLarge = codec(WireKind.HEADER);
    byte[] big = THeaderFrames.request().frame(new byte[MAX]);
    assertThat(tooLarge.next(ByteSource.of(big), 0, 4)).isEqualTo(WireEvent.REFUSED);
    assertThat(tooLarge.decoded().refusal().frameSize()).isNotNull();
    assertThat(tooLarge.rejected()).isTrue();

    ClientCodec badMagic = codec(WireKind.HEADER);
    byte[] wrong = THeaderFrames.request().frame(BINARY_MESSAGE);
    wrong[5] = 0x00;
    assertThat(badMagic.next(ByteSource.of(wrong), 0, wrong.length)).isEqualTo(WireEvent.REFUSED);
    Exception e = badMagic.decoded().refusal().exception();
    assertThat(e).isInstanceOf(TTransportException.class);
    assertThat(((TTransportException) e).getType()).isEqualTo(TTransportException.CORRUPTED_DATA);
    assertThat(e)
        .hasMessageStartingWith("THeader reply from ")
        .hasMessageEndingWith(
            " refused: frame of "
                + (wrong.length - 4)
                + " bytes: bytes 4-5 are 0f00 (expected: 0fff); connection closed");

    ClientCodec hmac = codec(WireKind.HEADER);
    byte[] mac = THeaderFrames.request().seqId(3).transform(2).frame(BINARY_MESSAGE);
    assertThat(hmac.next(ByteSource.of(mac), 0, mac.length)).isEqualTo(WireEvent.REFUSED);
    assertThat(hmac.decoded().refusal().exception())
        .hasMessageContaining("transform 2 (HMAC) not supported")
        .hasMessageContaining("(seqid 3)");
  }

  @Test
  void httpHeadCarriesHeaderFieldsAndTheTimeout() throws TException {
    ClientCodec codec = codec(WireKind.HTTP);
    byte[] head =
        codec.head(ByteBuffer.wrap(BINARY_MESSAGE), false, Map.of("X-Tenant", "acme"), 0, 99);
    String text = new String(head, StandardCharsets.ISO_8859_1);
    assertThat(text)
        .startsWith("POST / HTTP/1.1\r\nHost: h:9\r\n")
        .contains("\r\nX-Tenant: acme\r\nclient_timeout: 99\r\nContent-Length: 12\r\n\r\n")
        .endsWith("\r\n\r\n");
  }

  @Test
  void httpHeadersThatWouldBreakTheRequestAreRefused() {
    ClientCodec codec = codec(WireKind.HTTP);
    ByteBuffer message = ByteBuffer.wrap(BINARY_MESSAGE);
    assertThat(codec.refusal(message, Map.of("x-a", "1\r\nInjected: yes")))
        .isInstanceOf(TProtocolException.class)
        .hasMessage(
            "HTTP request to h:9 not sent: request header \"x-a\": value \"1\\r\\nInjected: yes\""
                + " (expected: no control characters such as CR or LF, ISO-8859-1 only)");
    assertThat(codec.refusal(message, Map.of("Content-Length", "3")))
        .hasMessageContaining("request header \"Content-Length\" (expected: none of [accept,");
    assertThat(codec.refusal(message, Map.of("bad name", "v")))
        .hasMessageContaining("request header name \"bad name\" (expected: an HTTP token)");
    assertThat(codec.refusal(message, Map.of("x-ok", "fine"))).isNull();
  }

  @Test
  void httpReplyHeadersAreLowerCased() throws Exception {
    ClientCodec codec = codec(WireKind.HTTP);
    codec.head(ByteBuffer.allocate(4), false);
    byte[] response =
        ("HTTP/1.1 200 OK\r\nX-Served-By: b\r\nContent-Length: 4\r\n\r\nabcd")
            .getBytes(StandardCharsets.ISO_8859_1);
    assertThat(codec.next(ByteSource.of(response), 0, response.length))
        .isEqualTo(WireEvent.MESSAGE);
    assertThat(codec.replyHeaders()).containsEntry("x-served-by", "b");
  }
}
