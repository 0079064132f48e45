package io.thriftnio.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.internal.FrameLength;
import io.thriftnio.core.util.internal.FrameInputTransport;
import io.thriftnio.core.util.internal.FrameOutputTransport;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.Framing;
import java.nio.ByteBuffer;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class FrameOutputTransportTest {

  private static TConfiguration maxFrame(int maxFrameSize) {
    return new TConfiguration(maxFrameSize, maxFrameSize, TConfiguration.DEFAULT_RECURSION_DEPTH);
  }

  private static byte[] bytes(int n, int seed) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 31 + seed);
    }
    return b;
  }

  private static byte[] toArray(ByteBuffer buffer) {
    byte[] b = new byte[buffer.remaining()];
    buffer.duplicate().get(b);
    return b;
  }

  @Test
  void toFramePatchesTheLengthIntoThePlaceholder() throws Exception {
    FrameOutputTransport t = FrameLength.output(new TConfiguration());
    t.write(new byte[] {1, 2, 3}, 0, 3);
    t.write(new byte[] {9, 4, 5, 9}, 1, 2);
    assertThat(t.payloadSize()).isEqualTo(5);

    ByteBuffer frame = t.toFrame();
    assertThat(toArray(frame)).containsExactly(0, 0, 0, 5, 1, 2, 3, 4, 5);
    assertThat(frame.getInt(frame.position())).isEqualTo(5);
    assertThat(toArray(t.payload())).containsExactly(1, 2, 3, 4, 5);
  }

  @Test
  void frameOfAProtocolMessageDecodesBack() throws Exception {
    FrameOutputTransport t = FrameLength.output(new TConfiguration(), 0);
    TProtocol p = new TBinaryProtocol(t);
    p.writeMessageBegin(new TMessage("get_last_sale", TMessageType.CALL, 7));
    p.writeString("IBM");
    p.writeMessageEnd();
    p.getTransport().flush(); // does nothing: the frame is finished by toFrame()

    ByteBuffer frame = t.toFrame();
    int length = Framing.decodeLength(frame.array(), frame.arrayOffset() + frame.position());
    assertThat(length)
        .isEqualTo(frame.remaining() - Framing.HEADER_SIZE)
        .isEqualTo(t.payloadSize());
    frame.position(frame.position() + Framing.HEADER_SIZE);
    TProtocol in = new TBinaryProtocol(FrameInputTransport.of(new TConfiguration(), frame));
    TMessage m = in.readMessageBegin();
    assertThat(m.name).isEqualTo("get_last_sale");
    assertThat(m.seqid).isEqualTo(7);
    assertThat(in.readString()).isEqualTo("IBM");
  }

  @Test
  void growsFromATinyInitialCapacityWithoutLosingBytes() throws Exception {
    FrameOutputTransport t = FrameLength.output(new TConfiguration(), 1);
    byte[] big = bytes(100_000, 3);
    for (int off = 0; off < big.length; off += 997) {
      t.write(big, off, Math.min(997, big.length - off));
    }
    assertThat(t.payloadSize()).isEqualTo(big.length);
    assertThat(toArray(t.payload())).isEqualTo(big);
    ByteBuffer frame = t.toFrame();
    assertThat(frame.remaining()).isEqualTo(big.length + 4);
    assertThat(frame.getInt(0)).isEqualTo(big.length);
  }

  @Test
  void resetDiscardsThePayloadForReuse() throws Exception {
    FrameOutputTransport t = FrameLength.output(new TConfiguration());
    t.write(bytes(1000, 1), 0, 1000);
    t.toFrame();
    t.reset();
    assertThat(t.payloadSize()).isZero();
    assertThat(t.payload().remaining()).isZero();
    t.write(new byte[] {42}, 0, 1);
    assertThat(toArray(t.toFrame())).containsExactly(0, 0, 0, 1, 42);
  }

  @Test
  void exactlyMaxFrameSizeIsAcceptedAndOneMoreByteIsRejected() throws Exception {
    FrameOutputTransport t = FrameLength.output(maxFrame(1000), 16);
    t.write(bytes(999, 0), 0, 999);
    t.write(new byte[] {1}, 0, 1);
    assertThat(t.payloadSize()).isEqualTo(1000);
    assertThatThrownBy(() -> t.write(new byte[] {2}, 0, 1))
        .isInstanceOfSatisfying(
            FrameSizeException.class,
            e -> {
              assertThat(e.length()).isEqualTo(1001);
              assertThat(e.maxFrameSize()).isEqualTo(1000);
              assertThat(e.getMessage()).contains("1001").contains("exceeds maxFrameSize 1000");
            });
    // The frame written so far is intact.
    assertThat(t.payloadSize()).isEqualTo(1000);
    assertThat(t.toFrame().getInt(0)).isEqualTo(1000);
  }

  @Test
  void aSingleWriteAboveTheLimitIsRejectedBeforeGrowing() throws Exception {
    FrameOutputTransport t = FrameLength.output(maxFrame(1000));
    assertThatThrownBy(() -> t.write(new byte[1001], 0, 1001))
        .isInstanceOf(FrameSizeException.class)
        .hasMessageContaining("1001");
    assertThat(t.payloadSize()).isZero();
  }

  @Test
  void protocolWritesBeyondTheLimitFail() throws Exception {
    FrameOutputTransport t = FrameLength.output(maxFrame(64));
    TProtocol p = new TBinaryProtocol(t);
    assertThatThrownBy(() -> p.writeBinary(ByteBuffer.wrap(new byte[100])))
        .isInstanceOf(FrameSizeException.class);
  }

  @Test
  void isWriteOnlyAndValidatesItsCapacity() throws Exception {
    FrameOutputTransport t = FrameLength.output(new TConfiguration());
    assertThat(t.isOpen()).isTrue();
    assertThatThrownBy(() -> t.read(new byte[1], 0, 1)).isInstanceOf(TTransportException.class);
    assertThatThrownBy(() -> FrameLength.output(new TConfiguration(), -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("initialCapacity: -1 (expected: >= 0)");
    assertThat(FrameLength.output(null).getConfiguration()).isNotNull();
  }

  @Test
  void writesAByteBufferInPlaceAndRenewsItsArrayForTheNextFrame() throws Exception {
    FrameOutputTransport t = FrameLength.output(new TConfiguration(), 2);
    ByteBuffer src = ByteBuffer.wrap(new byte[] {9, 1, 2, 3, 4, 9}, 1, 4);
    assertThat(t.write(src)).isEqualTo(4);
    assertThat(src.position()).as("consumed, as libthrift's default does").isEqualTo(5);
    ByteBuffer first = t.toFrame();

    t.renew(0);
    t.write(new byte[] {7, 7}, 0, 2);
    ByteBuffer second = t.toFrame();

    assertThat(bytes(first)).containsExactly(0, 0, 0, 4, 1, 2, 3, 4);
    assertThat(bytes(second)).containsExactly(0, 0, 0, 2, 7, 7);
    assertThatThrownBy(() -> t.renew(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("initialCapacity: -1 (expected: >= 0)");
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] a = new byte[b.remaining()];
    b.duplicate().get(a);
    return a;
  }
}
