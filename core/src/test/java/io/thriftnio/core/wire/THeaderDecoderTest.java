package io.thriftnio.core.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.WireKind;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TIOStreamTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** THeader requests over byte arrays: good frames, every refusal with its numbers, the sniffing. */
@Timeout(30)
class THeaderDecoderTest {

  private static final int MAX = 1000;
  private static final InetSocketAddress PEER = new InetSocketAddress("10.0.0.1", 7);

  private final Decoded out = new Decoded();

  private static byte[] message(TProtocolFactory protocol, String name, int seqid)
      throws TException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    TProtocol w = protocol.getProtocol(new TIOStreamTransport(bytes));
    w.writeMessageBegin(new TMessage(name, TMessageType.CALL, seqid));
    w.writeMessageEnd();
    return bytes.toByteArray();
  }

  private WireEvent decode(int max, byte[] wire) {
    return new THeaderDecoder(max, PEER).decode(ByteSource.of(wire), 0, wire.length, out);
  }

  private byte[] payload(byte[] wire) {
    return out.payloadArray() != null
        ? out.payloadArray()
        : Arrays.copyOfRange(wire, out.payloadOffset(), out.payloadOffset() + out.payloadLength());
  }

  @Test
  void aBinaryRequestWithoutHeadersIsASliceWithTheBinaryProtocol() throws TException {
    byte[] message = message(new TBinaryProtocol.Factory(), "echo", 7);
    byte[] wire = THeaderFrames.request().seqId(7).frame(message);

    assertThat(decode(MAX, wire)).isEqualTo(WireEvent.MESSAGE);
    assertThat(out.consumed()).isEqualTo(wire.length);
    assertThat(out.payloadArray()).isNull();
    assertThat(payload(wire)).isEqualTo(message);
    assertThat(out.envelope().protocol()).isSameAs(THeaderEnvelope.BINARY);
    assertThat(out.envelope().headers()).isEmpty();
  }

  @Test
  void aCompactRequestCarriesItsInfoHeadersInOrder() throws TException {
    byte[] message = message(new TCompactProtocol.Factory(), "echo", 3);
    byte[] wire =
        THeaderFrames.request()
            .protocol(2)
            .header("traceparent", "00-abc-def-01")
            .header("user", "ünïcode")
            .header("", "")
            .frame(message);

    assertThat(decode(MAX, wire)).isEqualTo(WireEvent.MESSAGE);
    assertThat(payload(wire)).isEqualTo(message);
    assertThat(out.envelope().protocol()).isSameAs(THeaderEnvelope.COMPACT);
    assertThat(out.envelope().headers())
        .containsExactly(
            Map.entry("traceparent", "00-abc-def-01"),
            Map.entry("user", "ünïcode"),
            Map.entry("", ""));
  }

  @Test
  void aZlibRequestIsInflatedIntoAnArrayOfItsOwn() throws TException {
    byte[] message = message(new TBinaryProtocol.Factory(), "echo".repeat(50), 1);
    byte[] wire = THeaderFrames.request().transform(1).header("k", "v").frame(message);

    assertThat(decode(MAX, wire)).isEqualTo(WireEvent.MESSAGE);
    assertThat(out.consumed()).isEqualTo(wire.length);
    assertThat(out.payloadArray()).isEqualTo(message);
    assertThat(out.envelope().headers()).containsExactly(Map.entry("k", "v"));
  }

  @Test
  void aZlibPayloadInflatingToMaxIsReadAndOneByteMoreIsRefusedWithoutInflatingFurther() {
    byte[] exact = new byte[MAX];
    assertThat(decode(MAX, THeaderFrames.request().transform(1).frame(exact)))
        .isEqualTo(WireEvent.MESSAGE);
    assertThat(out.payloadArray()).hasSize(MAX);

    byte[] bomb = THeaderFrames.request().seqId(9).transform(1).frame(new byte[MAX + 1]);
    assertThat(decode(MAX, bomb)).isEqualTo(WireEvent.REFUSED);
    assertThat(out.refusal().reason())
        .contains("10.0.0.1", "seqid 9", "inflates past maxFrameSize 1000 (stopped at 1000)");
    assertThat(out.refusal().header().seqid).isEqualTo(9);

    // A real bomb: 16 MB of zeros in a few kB, against the default limit's order of size.
    byte[] big = THeaderFrames.request().transform(1).frame(new byte[16_000_000]);
    assertThat(big.length).isLessThan(MAX * 20);
    assertThat(decode(1_000_000, big)).isEqualTo(WireEvent.REFUSED);
    assertThat(out.refusal().reason()).contains("inflates past maxFrameSize 1000000");
  }

  @Test
  void aCorruptZlibPayloadIsRefused() {
    byte[] wire =
        THeaderFrames.request().rawSection(new byte[] {0, 1, 1}).frame(new byte[] {1, 2, 3, 4});
    assertThat(decode(MAX, wire)).isEqualTo(WireEvent.REFUSED);
    assertThat(out.refusal().reason()).contains("zlib payload of 4 bytes is corrupt");
  }

  @Test
  void aFrameLongerThanMaxIsRefusedOnItsLengthAlone() {
    byte[] wire = THeaderFrames.request().frame(new byte[MAX]);
    assertThat(decode(MAX, Arrays.copyOf(wire, 6))).isEqualTo(WireEvent.REFUSED);
    assertThat(out.refusal().frameSize()).isNotNull();
    assertThat(out.refusal().reason()).contains(String.valueOf(wire.length - 4), "1000");
  }

  @Test
  void aFrameShorterThanTheFixedPartIsRefused() {
    byte[] wire = {0, 0, 0, 8, 0x0f, (byte) 0xff, 0, 0, 0, 0, 0, 0};
    assertThat(decode(MAX, wire)).isEqualTo(WireEvent.REFUSED);
    assertThat(out.refusal().reason())
        .contains("frame of 8 bytes is shorter than THeader's fixed part (10 bytes)");
  }

  @Test
  void aLaterFrameWithoutTheMagicIsRefused() {
    byte[] wire = {0, 0, 0, 12, (byte) 0x80, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
    assertThat(decode(MAX, wire)).isEqualTo(WireEvent.REFUSED);
    assertThat(out.refusal().reason()).contains("bytes 4-5 are 8001 (expected: 0fff)");
  }

  @Test
  void aHeaderSectionBeyondItsFrameIsRefusedWithTheSizes() {
    byte[] wire = THeaderFrames.request().headerSizeWords(100).frame(new byte[6]);
    assertThat(decode(MAX, wire)).isEqualTo(WireEvent.REFUSED);
    assertThat(out.refusal().reason())
        .contains(
            "header section of 400 bytes (HEADER SIZE 100) exceeds the 10 bytes of its 20-byte frame");
    assertThat(out.refusal().header()).isNull(); // nothing read to answer in
  }

  @Test
  void aTruncatedHeaderSectionIsRefused() {
    // protocol 0, 3 transforms announced, two ids present: the section ends inside the list.
    byte[] wire = THeaderFrames.request().rawSection(new byte[] {0, 3, 1, 1}).frame(new byte[4]);
    assertThat(decode(MAX, wire)).isEqualTo(WireEvent.REFUSED);
    assertThat(out.refusal().reason())
        .contains("transform id runs past the header section's end (4 bytes)");

    byte[] empty = THeaderFrames.request().rawSection(new byte[0]).frame(new byte[4]);
    assertThat(decode(MAX, empty)).isEqualTo(WireEvent.REFUSED);
    assertThat(out.refusal().reason())
        .contains("protocol id runs past the header section's end (0 bytes)");
  }

  @Test
  void aVarintOverflowingAnIntIsRefused() {
    byte[] sixBytes = {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0, 0, 0};
    assertThat(decode(MAX, THeaderFrames.request().rawSection(sixBytes).frame(new byte[4])))
        .isEqualTo(WireEvent.REFUSED);
    assertThat(out.refusal().reason())
        .contains("protocol id: varint at byte 0 overflows 31 bits (at most 5 bytes)");

    byte[] aboveIntMax = {0, 1, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f, 0};
    assertThat(decode(MAX, THeaderFrames.request().rawSection(aboveIntMax).frame(new byte[4])))
        .isEqualTo(WireEvent.REFUSED);
    assertThat(out.refusal().reason()).contains("transform id: varint at byte 2 overflows 31 bits");
  }

  @Test
  void aProtocolIdNotServedIsRefusedWithoutAnAnswer() {
    byte[] wire = THeaderFrames.request().protocol(1).frame(new byte[4]);
    assertThat(decode(MAX, wire)).isEqualTo(WireEvent.REFUSED);
    assertThat(out.refusal().reason()).contains("protocol id 1 (expected: 0 binary or 2 compact)");
    assertThat(out.refusal().header()).isNull(); // no protocol to write an answer in
  }

  @Test
  void transformsNotServedAreRefusedWithAnAnswerNamingTheId() {
    String[] expected = {
      "transform 2 (HMAC) not supported (supported: 1 zlib)",
      "transform 3 (snappy) not supported",
      "transform 77 (unknown) not supported"
    };
    int[] ids = {2, 3, 77};
    for (int i = 0; i < ids.length; i++) {
      byte[] wire =
          THeaderFrames.request().protocol(2).seqId(40 + i).transform(ids[i]).frame(new byte[4]);
      assertThat(decode(MAX, wire)).isEqualTo(WireEvent.REFUSED);
      assertThat(out.refusal().reason()).contains(expected[i], "seqid " + (40 + i), "10.0.0.1");
      assertThat(out.refusal().header().seqid).isEqualTo(40 + i);
      assertThat(out.refusal().envelope().protocol()).isSameAs(THeaderEnvelope.COMPACT);
    }
  }

  @Test
  void aRefusalIsAnsweredInAProtocolIdEncodedInMoreBytesThanNeeded() throws Exception {
    // compact (2) as the two-byte varint 82 00, then the HMAC transform
    byte[] section = {(byte) 0x82, 0x00, 1, 2};
    byte[] wire = THeaderFrames.request().seqId(3).rawSection(section).frame(new byte[4]);
    assertThat(decode(MAX, wire)).isEqualTo(WireEvent.REFUSED);
    assertThat(out.refusal().envelope().protocol()).isSameAs(THeaderEnvelope.COMPACT);
    ByteBuffer[] sent = new ByteBuffer[1];
    out.refusal()
        .envelope()
        .encode(
            ByteBuffer.wrap(new byte[] {0, 0, 0, 1, 42}), false, (head, body) -> sent[0] = head);
    byte[] head = new byte[sent[0].remaining()];
    sent[0].get(head);
    assertThat(THeaderFrames.read(Arrays.copyOf(head, head.length + 1)).protocolId).isEqualTo(2);
  }

  @Test
  void theEnvelopeSendsNothingForAOnewayOrUnreadableRequest() {
    decode(MAX, THeaderFrames.request().frame(new byte[4]));
    int[] sends = {0};
    out.envelope().encode(null, false, (head, body) -> sends[0]++);
    out.envelope().encode(null, true, (head, body) -> sends[0]++);
    assertThat(sends[0]).isZero();
    assertThat(out.envelope().closesConnection()).isFalse();
  }

  @Test
  void tooManyTransformsAreRefused() {
    byte[] wire =
        THeaderFrames.request().rawSection(new byte[] {0, 5, 1, 1, 1, 1, 1}).frame(new byte[4]);
    assertThat(decode(MAX, wire)).isEqualTo(WireEvent.REFUSED);
    assertThat(out.refusal().reason()).contains("5 transforms (limit 4)");
  }

  @Test
  void infoHeadersUpToTheCountLimitAreReadAndOneMoreIsRefused() {
    THeaderFrames limit = THeaderFrames.request();
    for (int i = 0; i < THeaderSection.MAX_INFO_HEADERS; i++) {
      limit.header("k" + i, "v");
    }
    assertThat(decode(100_000, limit.frame(new byte[4]))).isEqualTo(WireEvent.MESSAGE);
    assertThat(out.envelope().headers()).hasSize(100);

    THeaderFrames over = limit.header("one-more", "v");
    assertThat(decode(100_000, over.frame(new byte[4]))).isEqualTo(WireEvent.REFUSED);
    assertThat(out.refusal().reason()).contains("info headers: 101 declared after 0 (limit 100)");
  }

  @Test
  void anInfoHeaderCountBombIsRefusedBeforeAnyHeaderIsRead() {
    ByteArrayOutputStream section = new ByteArrayOutputStream();
    section.write(0); // binary
    section.write(0); // no transforms
    section.write(1); // key/value
    THeaderFrames.varint(section, 50); // 50 headers in a first block: accepted so far
    for (int i = 0; i < 50; i++) {
      section.write(0);
      section.write(0);
    }
    section.write(1);
    THeaderFrames.varint(section, 2_000_000_000);
    byte[] wire = THeaderFrames.request().rawSection(section.toByteArray()).frame(new byte[4]);
    assertThat(decode(MAX, wire)).isEqualTo(WireEvent.REFUSED);
    assertThat(out.refusal().reason())
        .contains("info headers: 2000000000 declared after 50 (limit 100)");
  }

  @Test
  void infoHeaderBytesBeyondTheLimitAreRefused() {
    byte[] wire =
        THeaderFrames.request().header("k".repeat(40_000), "v".repeat(30_000)).frame(new byte[4]);
    assertThat(decode(200_000, wire)).isEqualTo(WireEvent.REFUSED);
    assertThat(out.refusal().reason())
        .contains("info headers: 70000 bytes of keys and values (limit 65536)");
  }

  @Test
  void anInfoHeaderStringPastTheSectionIsRefused() {
    byte[] section = {0, 0, 1, 1, 50, 'a', 'b', 0};
    byte[] wire = THeaderFrames.request().rawSection(section).frame(new byte[4]);
    assertThat(decode(MAX, wire)).isEqualTo(WireEvent.REFUSED);
    assertThat(out.refusal().reason())
        .contains(
            "info header string of 50 bytes at byte 5 runs past the header section's 8 bytes");
  }

  @Test
  void anUnknownInfoIdEndsTheInfoHeadersAndThePayloadFollows() throws TException {
    byte[] message = message(new TBinaryProtocol.Factory(), "echo", 1);
    byte[] section = {0, 0, 1, 1, 1, 'a', 1, 'b', 9, (byte) 0xff, (byte) 0xff, 0};
    byte[] wire = THeaderFrames.request().rawSection(section).frame(message);
    assertThat(decode(MAX, wire)).isEqualTo(WireEvent.MESSAGE);
    assertThat(payload(wire)).isEqualTo(message);
    assertThat(out.envelope().headers()).containsExactly(Map.entry("a", "b"));
  }

  @Test
  void mutatedFramesAreReadOrRefusedNeverThrown() throws TException {
    java.util.Random random = new java.util.Random(26);
    byte[] message = message(new TCompactProtocol.Factory(), "echo", 1);
    byte[][] seeds = {
      THeaderFrames.request().protocol(2).header("k", "v").frame(message),
      THeaderFrames.request().transform(1).header("a", "b").header("c", "d").frame(message),
    };
    int messages = 0;
    int refusals = 0;
    for (int i = 0; i < 20_000; i++) {
      byte[] wire = seeds[i % 2].clone();
      for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
        wire[random.nextInt(wire.length)] = (byte) random.nextInt(256);
      }
      WireEvent event = decode(MAX, wire);
      assertThat(event).isIn(WireEvent.MESSAGE, WireEvent.REFUSED, WireEvent.NEED_MORE);
      if (event == WireEvent.MESSAGE) {
        messages++;
        assertThat(out.consumed()).isBetween(14, wire.length);
        assertThat(payload(wire).length).isLessThanOrEqualTo(MAX);
      } else if (event == WireEvent.REFUSED) {
        refusals++;
        assertThat(out.refusal().reason()).contains("10.0.0.1");
      }
    }
    assertThat(messages).as("mutations that still read").isPositive();
    assertThat(refusals).as("mutations refused").isPositive();
  }

  @Test
  void theSnifferTellsTHeaderFromFramedAndSmallFramesDoNotWait() throws TException {
    Set<WireKind> both = EnumSet.of(WireKind.FRAMED, WireKind.HEADER);
    ServerCodec codec = new ServerCodec(WireSettings.of(MAX, both, null, "/"), PEER);
    byte[] header = THeaderFrames.request().frame(message(new TBinaryProtocol.Factory(), "a", 1));
    ByteSource in = ByteSource.of(header);
    for (int available = 1; available < 6; available++) {
      assertThat(codec.next(in, 0, available)).isEqualTo(WireEvent.NEED_MORE);
      assertThat(codec.kind()).isNull();
    }
    assertThat(codec.next(in, 0, header.length)).isEqualTo(WireEvent.MESSAGE);
    assertThat(codec.kind()).isSameAs(THeaderDecoder.KIND);

    ServerCodec small = new ServerCodec(WireSettings.of(MAX, both, null, "/"), PEER);
    byte[] oneByteFrame = {0, 0, 0, 1, 42};
    assertThat(small.next(ByteSource.of(oneByteFrame), 0, 5)).isEqualTo(WireEvent.MESSAGE);
    assertThat(small.kind()).isSameAs(FramedDecoder.KIND);
  }

  @Test
  void aServerAcceptingTHeaderAloneRefusesAFramedPeer() {
    ServerCodec codec =
        new ServerCodec(WireSettings.of(MAX, EnumSet.of(WireKind.HEADER), null, "/"), PEER);
    byte[] framed = {0, 0, 0, 12, (byte) 0x80, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
    assertThat(codec.next(ByteSource.of(framed), 0, framed.length)).isEqualTo(WireEvent.REFUSED);
    assertThat(codec.decoded().refusal().reason())
        .contains(
            "accepted: [HEADER]",
            "look like a framed TBinaryProtocol message (a call): to serve them, accept"
                + " WireKind.FRAMED on this server (ServerBuilder.wireKinds(FRAMED, HEADER))");
  }

  @Test
  void twoRequestsInOneReadAreReadOneAfterTheOther() throws TException {
    byte[] a =
        THeaderFrames.request().seqId(1).frame(message(new TBinaryProtocol.Factory(), "a", 1));
    byte[] b =
        THeaderFrames.request()
            .seqId(2)
            .transform(1)
            .frame(message(new TBinaryProtocol.Factory(), "b", 2));
    byte[] wire = ByteBuffer.allocate(a.length + b.length).put(a).put(b).array();
    THeaderDecoder decoder = new THeaderDecoder(MAX, PEER);
    ByteSource in = ByteSource.of(wire);
    assertThat(decoder.decode(in, 0, wire.length, out)).isEqualTo(WireEvent.MESSAGE);
    assertThat(out.consumed()).isEqualTo(a.length);
    assertThat(decoder.decode(in, a.length, b.length - 1, out)).isEqualTo(WireEvent.NEED_MORE);
    assertThat(decoder.decode(in, a.length, b.length, out)).isEqualTo(WireEvent.MESSAGE);
    assertThat(out.payloadArray()).isEqualTo(message(new TBinaryProtocol.Factory(), "b", 2));
  }
}
