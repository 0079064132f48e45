package io.thriftnio.core.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.WireKind;
import io.thriftnio.core.util.internal.Framing;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TField;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TStruct;
import org.apache.thrift.protocol.TType;
import org.apache.thrift.transport.TIOStreamTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The server codec driven directly: every kind, byte by byte, many messages per read, limits. */
@Timeout(30)
class ServerCodecTest {

  private static final int MAX = 1000;
  private static final Set<WireKind> ALL = EnumSet.allOf(WireKind.class);

  /** What the codec found in a stream: messages' payloads, answers and the refusal. */
  private static final class Found {
    final List<byte[]> messages = new ArrayList<>();
    final List<Envelope> envelopes = new ArrayList<>();
    final List<String> answers = new ArrayList<>();
    Refusal refusal;
    int consumed;
  }

  private static ServerCodec codec(int max, Set<WireKind> accepted) {
    return new ServerCodec(
        WireSettings.of(max, accepted, new TBinaryProtocol.Factory(), "/"),
        new InetSocketAddress("10.0.0.1", 7));
  }

  /**
   * Feeds {@code wire} to {@code codec}, its bytes arriving up to each split point in turn and then
   * whole, and consumes what each step reports, as an adapter does.
   */
  private static Found feed(ServerCodec codec, byte[] wire, int... splits) {
    Found found = new Found();
    int[] ends = Arrays.copyOf(splits, splits.length + 1);
    ends[splits.length] = wire.length;
    ByteSource in = ByteSource.of(wire);
    for (int end : ends) {
      while (found.refusal == null) {
        WireEvent event = codec.next(in, found.consumed, end - found.consumed);
        Decoded d = codec.decoded();
        if (event == WireEvent.NEED_MORE) {
          break;
        }
        if (event == WireEvent.REFUSED) {
          found.refusal = d.refusal();
          break;
        }
        if (event == WireEvent.MESSAGE) {
          byte[] payload = d.payloadArray();
          if (payload == null) {
            int from = found.consumed + d.payloadOffset();
            payload = Arrays.copyOfRange(wire, from, from + d.payloadLength());
          }
          found.messages.add(payload);
          found.envelopes.add(d.envelope());
        } else if (event == WireEvent.ANSWER) {
          found.answers.add(StandardCharsets.ISO_8859_1.decode(d.answer()).toString());
        }
        found.consumed += d.consumed();
      }
    }
    return found;
  }

  private static int[] everyByte(int length) {
    int[] splits = new int[length];
    for (int i = 0; i < length; i++) {
      splits[i] = i;
    }
    return splits;
  }

  private static byte[] frame(byte[] payload) {
    byte[] f = new byte[Framing.HEADER_SIZE + payload.length];
    Framing.encodeLength(payload.length, f, 0);
    System.arraycopy(payload, 0, f, Framing.HEADER_SIZE, payload.length);
    return f;
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  private static byte[] call(String method, int seqid, int stringLength) throws TException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    TProtocol w = new TBinaryProtocol(new TIOStreamTransport(out));
    w.writeMessageBegin(new TMessage(method, TMessageType.CALL, seqid));
    w.writeStructBegin(new TStruct("args"));
    w.writeFieldBegin(new TField("s", TType.STRING, (short) 1));
    w.writeString("x".repeat(stringLength));
    w.writeFieldEnd();
    w.writeFieldStop();
    w.writeStructEnd();
    w.writeMessageEnd();
    return out.toByteArray();
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  @Test
  void framesAreFoundByteByByteAndManyPerRead() {
    byte[] a = "first".getBytes(StandardCharsets.US_ASCII);
    byte[] b = new byte[MAX];
    byte[] c = {7};
    byte[] wire = concat(frame(a), frame(b), frame(c));
    for (int[] splits : new int[][] {{}, everyByte(wire.length), {3, 9, 10, 700}}) {
      Found found = feed(codec(MAX, EnumSet.of(WireKind.FRAMED)), wire, splits);
      assertThat(found.messages).containsExactly(a, b, c);
      assertThat(found.envelopes).containsOnly(Envelope.FRAMED);
      assertThat(found.consumed).isEqualTo(wire.length);
      assertThat(found.refusal).isNull();
    }
  }

  @Test
  void aFrameOfMaxBytesIsReadAndOneMoreIsRefusedWithItsHeader() throws TException {
    byte[] payload = call("echo", 9, 200);
    byte[] over = frame(payload);
    Framing.encodeLength(MAX + 1, over, 0);
    Found found = feed(codec(MAX, EnumSet.of(WireKind.FRAMED)), over);
    assertThat(found.refusal.frameSize().length()).isEqualTo(MAX + 1);
    assertThat(found.refusal.frameSize().maxFrameSize()).isEqualTo(MAX);
    assertThat(found.refusal.header().name).isEqualTo("echo");
    assertThat(found.refusal.header().seqid).isEqualTo(9);
    assertThat(found.refusal.envelope()).isSameAs(Envelope.FRAMED);
    assertThat(found.refusal.reason()).contains("1001").contains("/10.0.0.1:7");
    // The header is read only from the bytes that came with the length: cut short, none.
    Found cut = feed(codec(MAX, EnumSet.of(WireKind.FRAMED)), Arrays.copyOf(over, 10));
    assertThat(cut.refusal.header()).isNull();
    assertThat(feed(codec(MAX, ALL), frame(new byte[MAX])).messages).hasSize(1);
  }

  @Test
  void lengthsThatAreNotPositiveAreRefusedAndNothingAfterIsRead() {
    for (int length : new int[] {0, -1, Integer.MIN_VALUE}) {
      byte[] wire = new byte[12];
      Framing.encodeLength(length, wire, 0);
      ServerCodec codec = codec(MAX, EnumSet.of(WireKind.FRAMED));
      Found found = feed(codec, wire);
      assertThat(found.refusal.reason()).contains("is invalid (expected: 1..1000)");
      assertThat(found.refusal.header()).isNull();
      assertThat(codec.rejected()).isTrue();
      assertThat(codec.next(ByteSource.of(frame(new byte[1])), 0, 5))
          .isEqualTo(WireEvent.NEED_MORE);
      assertThat(codec.endOfInput()).as("a refused connection is not counted as cut").isFalse();
    }
  }

  @Test
  void framedAloneTakesForeignBytesForALength() {
    Found found = feed(codec(MAX, EnumSet.of(WireKind.FRAMED)), ascii("GET / HTTP/1.1\r\n"));
    assertThat(found.refusal.frameSize()).isNotNull();
    assertThat(found.refusal.reason()).contains("look like an HTTP request (\"GET\")");
  }

  @Test
  void anHttpRequestToAServerWithoutHttpNamesTheSettingThatServesIt() {
    Found framedOnly = feed(codec(MAX, EnumSet.of(WireKind.FRAMED)), ascii("POST / HTTP/1.1\r\n"));
    assertThat(framedOnly.refusal.reason())
        .isEqualTo(
            "frame length 1347375956 from /10.0.0.1:7 exceeds maxFrameSize "
                + MAX
                + "; first bytes 50 4f 53 54 look like an HTTP request (\"POST\"): to serve them,"
                + " accept WireKind.HTTP on this server (ServerBuilder.wireKinds(FRAMED, HTTP))");
    Found unframedOnly =
        feed(codec(MAX, EnumSet.of(WireKind.UNFRAMED)), ascii("GET / HTTP/1.1\r\n"));
    assertThat(unframedOnly.refusal.reason())
        .isEqualTo(
            "connection from /10.0.0.1:7 refused (accepted: [UNFRAMED]): first bytes 47 45 54 20"
                + " look like an HTTP request (\"GET\"): to serve them, accept WireKind.HTTP on"
                + " this server (ServerBuilder.wireKinds(UNFRAMED, HTTP))");
    // Not advice for other foreign bytes, nor for a frame length that is merely too large.
    assertThat(feed(codec(MAX, EnumSet.of(WireKind.FRAMED)), ascii("SSH-2.0")).refusal.reason())
        .endsWith("first bytes 53 53 48 2d look like an SSH banner: not a Thrift client");
    assertThat(
            feed(codec(MAX, EnumSet.of(WireKind.FRAMED)), frame(new byte[MAX + 1]))
                .refusal
                .reason())
        .endsWith("exceeds maxFrameSize " + MAX);
  }

  /** Issue 38, item 7: a THeader frame, bare or inside a framed frame, on a port without HEADER. */
  @Test
  void aTHeaderFrameOnAFramedOnlyServerNamesTheSettingThatServesIt() {
    byte[] theader = {0, 0, 0, 10, 0x0f, (byte) 0xff, 0, 0, 0, 0, 0, 1, 0, 0};
    assertThat(feed(codec(MAX, EnumSet.of(WireKind.FRAMED)), theader).refusal.reason())
        .isEqualTo(
            "frame of 10 bytes from /10.0.0.1:7 refused: first bytes 00 00 00 0a look like a"
                + " THeader frame: to serve them, accept WireKind.HEADER on this server"
                + " (ServerBuilder.wireKinds(FRAMED, HEADER))");
    byte[] inFramed = {0, 0, 0, 14, 0, 0, 0, 10, 0x0f, (byte) 0xff, 0, 0, 0, 0, 0, 1, 0, 0};
    assertThat(feed(codec(MAX, EnumSet.of(WireKind.FRAMED)), inFramed).refusal.reason())
        .isEqualTo(
            "frame of 14 bytes from /10.0.0.1:7 refused: first bytes 00 00 00 0e look like a"
                + " THeader frame inside a framed frame: to serve them, accept WireKind.HEADER on"
                + " this server (ServerBuilder.wireKinds(FRAMED, HEADER))");
  }

  @Test
  void theFirstBytesPickTheKindAmongThoseAccepted() throws TException {
    byte[] message = call("echo", 1, 10);
    Found unframed = feed(codec(MAX, ALL), concat(message, message), everyByte(message.length));
    assertThat(unframed.messages).containsExactly(message, message);
    assertThat(unframed.envelopes).containsOnly(Envelope.UNFRAMED);
    Found framed = feed(codec(MAX, ALL), frame(message));
    assertThat(framed.envelopes).containsExactly(Envelope.FRAMED);
    Found http =
        feed(codec(MAX, ALL), ascii("POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"), 1, 2);
    assertThat(http.messages).containsExactly(ascii("abc"));
    assertThat(http.envelopes.get(0)).isInstanceOf(HttpEnvelope.class);
    Found foreign = feed(codec(MAX, EnumSet.of(WireKind.UNFRAMED)), frame(message));
    assertThat(foreign.refusal.reason())
        .startsWith(
            "connection from /10.0.0.1:7 refused (accepted: [UNFRAMED]): first bytes 00 00 00")
        .endsWith(
            "look like a framed TBinaryProtocol message (a call): to serve them, accept"
                + " WireKind.FRAMED on this server (ServerBuilder.wireKinds(FRAMED, UNFRAMED))");
  }

  @Test
  void anUnframedMessageOfMaxBytesIsReadAndOneMoreIsRefused() throws TException {
    byte[] message = call("echo", 3, 100);
    assertThat(feed(codec(message.length, ALL), message).messages).hasSize(1);
    Found over = feed(codec(message.length - 1, ALL), message);
    assertThat(over.refusal.reason())
        .startsWith("invalid unframed BINARY message from /10.0.0.1:7:")
        .contains("maxMessageSize " + (message.length - 1));
    assertThat(over.refusal.header().name).isEqualTo("echo");
    assertThat(over.refusal.envelope()).isSameAs(Envelope.UNFRAMED);
  }

  @Test
  void httpAnswersWithoutACallComeInRequestOrder() {
    String head = "POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n";
    byte[] wire = ascii("GET / HTTP/1.1\r\n\r\n" + head + "ok");
    int afterHead = wire.length - 2;
    Found found = feed(codec(MAX, ALL), wire, afterHead);
    assertThat(found.answers).hasSize(2);
    assertThat(found.answers.get(0)).startsWith("HTTP/1.1 405 Method Not Allowed\r\n");
    assertThat(found.answers.get(1)).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");
    assertThat(found.messages).containsExactly(ascii("ok"));
  }

  @Test
  void httpBodyOfMaxBytesIsReadAndOneMoreIsRefusedWith413() {
    String body = "x".repeat(MAX);
    Found fits =
        feed(codec(MAX, ALL), ascii("POST / HTTP/1.1\r\nContent-Length: 1000\r\n\r\n" + body));
    assertThat(fits.messages.get(0)).hasSize(MAX);
    Found chunked =
        feed(
            codec(MAX, ALL),
            ascii(
                "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3e8\r\n"
                    + body
                    + "\r\n0\r\n\r\n"));
    assertThat(chunked.messages.get(0)).hasSize(MAX);
    ServerCodec codec = codec(MAX, ALL);
    Found over = feed(codec, ascii("POST / HTTP/1.1\r\nContent-Length: 1001\r\n\r\n"));
    assertThat(StandardCharsets.ISO_8859_1.decode(over.refusal.answer()).toString())
        .startsWith("HTTP/1.1 413 Content Too Large\r\n");
    assertThat(over.refusal.reason()).startsWith("HTTP request from /10.0.0.1:7 refused with 413");
    assertThat(codec.rejected()).isTrue();
  }

  @Test
  void aRequestWithoutKeepAliveIsTheLastOneRead() {
    ServerCodec codec = codec(MAX, ALL);
    String one = "POST / HTTP/1.1\r\nConnection: close\r\nContent-Length: 1\r\n\r\na";
    Found found = feed(codec, ascii(one + "POST / HTTP/1.1\r\nContent-Length: 1\r\n\r\nb"));
    assertThat(found.messages).containsExactly(ascii("a"));
    assertThat(found.envelopes.get(0).closesConnection()).isTrue();
    assertThat(codec.rejected()).isTrue();
  }

  @Test
  void peekKeepsTheNextMessageForTheNextStep() {
    byte[] wire = concat(frame(new byte[] {1}), frame(new byte[] {2}), new byte[] {0, 0});
    ServerCodec codec = codec(MAX, ALL);
    ByteSource in = ByteSource.of(wire);
    assertThat(codec.next(in, 0, wire.length)).isEqualTo(WireEvent.MESSAGE);
    assertThat(codec.peek(in, 5, wire.length - 5)).isTrue();
    assertThat(codec.next(in, 5, wire.length - 5)).isEqualTo(WireEvent.MESSAGE);
    assertThat(codec.decoded().payloadOffset()).isEqualTo(Framing.HEADER_SIZE);
    assertThat(codec.peek(in, 10, 2)).isFalse();
    assertThat(codec.next(in, 10, 2)).isEqualTo(WireEvent.NEED_MORE);
    assertThat(codec.partialSinceNanos()).isNotZero();
  }

  @Test
  void peekLooksAheadOnTHeaderConnectionsToo() {
    // Without it a Grizzly server wrote each pipelined THeader reply on its own (13 us per call
    // against 2 framed in the efficiency bench); its envelope is taken before the look-ahead.
    byte[] wire =
        concat(
            THeaderFrames.request().seqId(1).frame(new byte[] {1, 2, 3, 4}),
            THeaderFrames.request().seqId(2).frame(new byte[] {5, 6, 7, 8}));
    int first = wire.length / 2;
    ServerCodec codec = codec(MAX, EnumSet.of(WireKind.FRAMED, WireKind.HEADER));
    ByteSource in = ByteSource.of(wire);
    assertThat(codec.next(in, 0, wire.length)).isEqualTo(WireEvent.MESSAGE);
    Envelope firstEnvelope = codec.decoded().envelope();
    assertThat(codec.peek(in, first, wire.length - first)).isTrue();
    assertThat(codec.next(in, first, wire.length - first)).isEqualTo(WireEvent.MESSAGE);
    assertThat(codec.decoded().envelope()).isNotSameAs(firstEnvelope);
    assertThat(codec.decoded().envelope().toString()).contains("seqid 2");
    assertThat(firstEnvelope.toString()).contains("seqid 1");
  }

  @Test
  void aRefusalFoundByPeekIsHandedOutByTheNextStep() {
    byte[] bad = new byte[8];
    Framing.encodeLength(MAX + 1, bad, 0);
    byte[] wire = concat(frame(new byte[] {1}), bad);
    ServerCodec codec = codec(MAX, EnumSet.of(WireKind.FRAMED));
    ByteSource in = ByteSource.of(wire);
    assertThat(codec.next(in, 0, wire.length)).isEqualTo(WireEvent.MESSAGE);
    assertThat(codec.rejected()).isFalse();
    assertThat(codec.peek(in, 5, wire.length - 5)).as("no whole message follows").isFalse();
    assertThat(codec.next(in, 5, wire.length - 5)).isEqualTo(WireEvent.REFUSED);
    assertThat(codec.decoded().refusal().frameSize().length()).isEqualTo(MAX + 1);
  }

  @Test
  void anInputEndingInsideAMessageIsCountedUnlessTheServerDroppedIt() {
    ServerCodec cut = codec(MAX, ALL);
    feed(cut, new byte[] {0, 0, 0, 9, 1});
    assertThat(cut.partialSinceNanos()).isNotZero();
    assertThat(cut.endOfInput()).isTrue();
    ServerCodec whole = codec(MAX, ALL);
    feed(whole, frame(new byte[] {1}));
    assertThat(whole.partialSinceNanos()).isZero();
    assertThat(whole.endOfInput()).isFalse();
    ServerCodec timedOut = codec(MAX, ALL);
    feed(timedOut, new byte[] {0, 0, 0, 9, 1});
    timedOut.discardRest();
    assertThat(timedOut.endOfInput()).isFalse();
  }

  @Test
  void envelopesWrapTheReplyAsTheRequestCame() {
    ByteBuffer reply = ByteBuffer.allocate(7);
    reply.putInt(3).put(new byte[] {1, 2, 3}).flip();
    List<ByteBuffer[]> sent = new ArrayList<>();
    Envelope.Outbound out = (head, body) -> sent.add(new ByteBuffer[] {head, body});
    Envelope.FRAMED.encode(reply.duplicate(), false, out);
    assertThat(sent.get(0)[1].remaining()).isEqualTo(7);
    Envelope.UNFRAMED.encode(reply.duplicate(), false, out);
    assertThat(sent.get(1)[1].remaining()).isEqualTo(3);
    Envelope.FRAMED.encode(null, false, out);
    assertThat(sent).as("a oneway call sends nothing framed").hasSize(2);
    HttpEnvelope http = new HttpEnvelope(true, false, "application/x-thrift", java.util.Map.of());
    http.encode(reply.duplicate(), false, out);
    assertThat(StandardCharsets.ISO_8859_1.decode(sent.get(2)[0]).toString())
        .contains("Content-Length: 3\r\n");
    assertThat(sent.get(2)[1].remaining()).isEqualTo(3);
    http.encode(null, false, out);
    assertThat(StandardCharsets.ISO_8859_1.decode(sent.get(3)[0]).toString())
        .as("a oneway call still gets its HTTP answer")
        .startsWith("HTTP/1.1 200 OK\r\n")
        .contains("Content-Length: 0\r\n");
    http.encode(null, true, out);
    assertThat(StandardCharsets.ISO_8859_1.decode(sent.get(4)[0]).toString())
        .startsWith("HTTP/1.1 400 Bad Request\r\n")
        .contains("Connection: close\r\n");
  }
}
