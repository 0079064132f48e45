package io.thriftnio.core.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.HttpStatusException;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.util.internal.Framing;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The client codec driven directly: heads, replies of every transport, limits, endings. */
@Timeout(30)
class ClientCodecTest {

  private static final int MAX = 100;
  private static final InetSocketAddress SERVER = InetSocketAddress.createUnresolved("h", 9);

  private static ClientCodec codec(WireKind transport) {
    return ClientCodec.of(
        ClientOptions.builder().wireKind(transport).maxFrameSize(MAX).build(), SERVER, "h:9");
  }

  /** What a stream of replies came to, event by event. */
  private static List<String> read(ClientCodec codec, byte[] wire, boolean end, int... splits) {
    List<String> events = new ArrayList<>();
    int[] ends = Arrays.copyOf(splits, splits.length + 1);
    ends[splits.length] = wire.length;
    ByteSource in = ByteSource.of(wire);
    int consumed = 0;
    for (int upTo : ends) {
      while (!codec.rejected()) {
        WireEvent event = codec.next(in, consumed, upTo - consumed);
        if (event == WireEvent.NEED_MORE) {
          break;
        }
        events.add(describe(codec.decoded(), wire, consumed));
        consumed += codec.decoded().consumed();
      }
    }
    if (end && codec.endOfStream(in, consumed, wire.length - consumed) != WireEvent.NEED_MORE) {
      events.add(describe(codec.decoded(), wire, consumed));
    }
    return events;
  }

  private static String describe(Decoded d, byte[] wire, int start) {
    String close = d.closeAfter() != null ? " then close: " + d.closeAfter() : "";
    switch (d.event()) {
      case MESSAGE:
        byte[] payload = d.payloadArray();
        if (payload == null) {
          int from = start + d.payloadOffset();
          payload = Arrays.copyOfRange(wire, from, from + d.payloadLength());
        }
        return "reply " + new String(payload, StandardCharsets.ISO_8859_1) + close;
      case FAILED:
        return "failed " + d.failure().getMessage() + close;
      case SKIPPED:
        return "skipped" + close;
      case REFUSED:
        return "refused " + d.refusal().reason();
      default:
        return "event " + d.event();
    }
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static byte[] frame(String payload) {
    byte[] p = ascii(payload);
    byte[] f = new byte[Framing.HEADER_SIZE + p.length];
    Framing.encodeLength(p.length, f, 0);
    System.arraycopy(p, 0, f, Framing.HEADER_SIZE, p.length);
    return f;
  }

  @Test
  void aTHeaderClientIsAccepted() {
    assertThat(codec(WireKind.HEADER).wireKind()).isEqualTo(WireKind.HEADER);
    assertThat(codec(WireKind.HEADER).matchesBySeqId()).isTrue();
    assertThat(codec(WireKind.FRAMED).carriesHeaders()).isFalse();
  }

  @Test
  void everyKindHasAHeadWithoutHeaders() throws Exception {
    ByteBuffer binary = ByteBuffer.wrap(new byte[] {(byte) 0x80, 1, 0, 1});
    for (WireKind kind : List.of(WireKind.FRAMED, WireKind.UNFRAMED, WireKind.HTTP)) {
      assertThat(codec(kind).head(binary, false)).isNotNull();
    }
    // THeader: length 22, magic, the out-of-order flag, seqid 0, one word, binary, no transforms
    assertThat(codec(WireKind.HEADER).head(binary, false))
        .containsExactly(0, 0, 0, 18, 0x0f, 0xff, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0);
    assertThat(binary.remaining()).isEqualTo(4);
  }

  @Test
  void headsGoBeforeEachRequest() throws Exception {
    assertThat(codec(WireKind.FRAMED).head(ByteBuffer.allocate(258), false))
        .containsExactly(0, 0, 1, 2);
    assertThat(codec(WireKind.UNFRAMED).head(ByteBuffer.allocate(258), false)).isEmpty();
    assertThat(
            new String(
                codec(WireKind.HTTP).head(ByteBuffer.allocate(21), false),
                StandardCharsets.US_ASCII))
        .isEqualTo(
            "POST / HTTP/1.1\r\nHost: h:9\r\nContent-Type: application/x-thrift\r\n"
                + "Accept: application/x-thrift\r\nContent-Length: 21\r\n\r\n");
  }

  @Test
  void framedRepliesAtEverySplitAndTheLimit() {
    String max = "y".repeat(MAX);
    byte[] wire = new byte[0];
    for (byte[] f : new byte[][] {frame("one"), frame(max), frame("two")}) {
      byte[] w = Arrays.copyOf(wire, wire.length + f.length);
      System.arraycopy(f, 0, w, wire.length, f.length);
      wire = w;
    }
    for (int split = 0; split <= wire.length; split++) {
      assertThat(read(codec(WireKind.FRAMED), wire, true, split))
          .containsExactly("reply one", "reply " + max, "reply two");
    }
    byte[] over = frame(max + "z");
    ClientCodec codec = codec(WireKind.FRAMED);
    assertThat(read(codec, over, false))
        .singleElement()
        .asString()
        .startsWith("refused frame length 101 from h")
        .endsWith("exceeds maxFrameSize 100");
    assertThat(codec.decoded().refusal().frameSize().length()).isEqualTo(101);
  }

  @Test
  void unframedRepliesAreWalkedAndTheirEndsReported() {
    byte[] reply = {(byte) 0x80, 1, 0, 2, 0, 0, 0, 1, 'e', 0, 0, 0, 5, 0};
    byte[] two = Arrays.copyOf(reply, 2 * reply.length);
    System.arraycopy(reply, 0, two, reply.length, reply.length);
    for (int split = 0; split <= two.length; split++) {
      assertThat(read(codec(WireKind.UNFRAMED), two, true, split)).hasSize(2);
    }
    ClientCodec cut = codec(WireKind.UNFRAMED);
    assertThat(read(cut, Arrays.copyOf(reply, 5), true))
        .containsExactly(
            "refused connection to h:9 closed by the peer 5 bytes into an unframed reply"
                + " (maxFrameSize 100)");
    assertThat(((TTransportException) cut.decoded().refusal().exception()).getType())
        .isEqualTo(TTransportException.END_OF_FILE);
    assertThat(read(codec(WireKind.UNFRAMED), frame("x"), true))
        .containsExactly(
            "refused invalid unframed reply from h:9: first byte 00 (expected: 80 strict binary,"
                + " 82 compact or 5b '[' JSON; a framed server's replies start with a length);"
                + " connection closed");
  }

  @Test
  void httpResponsesAreMatchedToTheCallsInOrder() throws Exception {
    ClientCodec codec = codec(WireKind.HTTP);
    codec.head(ByteBuffer.allocate(1), false);
    codec.head(ByteBuffer.allocate(1), true);
    codec.head(ByteBuffer.allocate(1), false);
    codec.head(ByteBuffer.allocate(1), false);
    byte[] wire =
        ascii(
            "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nA"
                + "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
                + "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 14\r\n\r\ntry\r\nelsewhere"
                + "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                + "1\r\nD\r\n0\r\n\r\n");
    List<String> events = read(codec, wire, false, 7, 60, 61);
    assertThat(events)
        .containsExactly(
            "reply A",
            "skipped",
            "failed HTTP status 503 Service Unavailable from h:9 (expected: 200): try  elsewhere",
            "reply D then close: the server ended the connection after a 200 response"
                + " (Connection: close)");
    assertThat(codec.rejected()).isTrue();
  }

  @Test
  void httpFailuresCarryTheStatusAndEndingsAreDelivered() throws Exception {
    ClientCodec codec = codec(WireKind.HTTP);
    codec.head(ByteBuffer.allocate(1), false);
    byte[] toEof = ascii("HTTP/1.0 200 OK\r\n\r\nbody up to the end");
    assertThat(read(codec, toEof, true))
        .containsExactly(
            "reply body up to the end then close: the server ended the connection after a 200"
                + " response (Connection: close)");
    ClientCodec failing = codec(WireKind.HTTP);
    failing.head(ByteBuffer.allocate(1), false);
    byte[] oops = ascii("HTTP/1.1 500 Oops\r\nContent-Length: 0\r\n\r\n");
    assertThat(failing.next(ByteSource.of(oops), 0, oops.length)).isEqualTo(WireEvent.FAILED);
    assertThat(((HttpStatusException) failing.decoded().failure()).status()).isEqualTo(500);
    assertThat(failing.decoded().consumed()).isEqualTo(oops.length);
    assertThat(
            read(
                codec(WireKind.HTTP), ascii("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"), false))
        .containsExactly("refused a response arrived with no call pending");
    ClientCodec malformed = codec(WireKind.HTTP);
    malformed.head(ByteBuffer.allocate(1), false);
    assertThat(read(malformed, ascii("SSH-2.0-OpenSSH\r\n"), false))
        .containsExactly(
            "refused malformed HTTP response from h:9: malformed status line 'SSH-2.0-OpenSSH';"
                + " connection closed");
    ClientCodec over = codec(WireKind.HTTP);
    over.head(ByteBuffer.allocate(1), false);
    assertThat(read(over, ascii("HTTP/1.1 200 OK\r\nContent-Length: 101\r\n\r\n"), false))
        .containsExactly(
            "refused malformed HTTP response from h:9: response 200 Content-Length 101 over the"
                + " limit of 100 bytes; connection closed");
  }
}
