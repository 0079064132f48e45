package io.thriftnio.core.util.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.internal.FrameLength;
import java.nio.ByteBuffer;
import java.util.function.Function;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TField;
import org.apache.thrift.protocol.TList;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolException;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.protocol.TProtocolUtil;
import org.apache.thrift.protocol.TStruct;
import org.apache.thrift.protocol.TType;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(20)
class FrameInputTransportTest {

  /**
   * Tests of libthrift behaviour newer than the oldest supported libthrift; the {@code
   * libthrift-oldest} profile leaves them out.
   */
  static final String LIBTHRIFT_CURRENT = "libthrift-current";

  private static final TConfiguration CONFIG = new TConfiguration();

  /** Writes with {@code factory} into a byte array (no length prefix). */
  static byte[] encode(TProtocolFactory factory, ThrowingWriter writer) throws Exception {
    FrameOutputTransport out = FrameLength.output(CONFIG);
    writer.write(factory.getProtocol(out));
    ByteBuffer payload = out.payload();
    byte[] bytes = new byte[payload.remaining()];
    payload.get(bytes);
    return bytes;
  }

  @FunctionalInterface
  interface ThrowingWriter {
    void write(TProtocol p) throws TException;
  }

  private static TProtocolFactory factory(String name) {
    return name.equals("binary") ? new TBinaryProtocol.Factory() : new TCompactProtocol.Factory();
  }

  @Test
  void readsExactlyTheFrameAndFailsWithEndOfFilePastIt() throws Exception {
    byte[] backing = {9, 9, 1, 2, 3, 4, 5, 9, 9};
    ByteBuffer payload = ByteBuffer.wrap(backing, 2, 5);
    FrameInputTransport t = FrameInputTransport.of(CONFIG, payload);
    assertThat(t.remaining()).isEqualTo(5);

    byte[] dst = new byte[10];
    assertThat(t.read(dst, 0, 3)).isEqualTo(3);
    assertThat(t.read(dst, 3, 10 - 3)).isEqualTo(2); // short read at the end of the frame, no more
    assertThat(dst).startsWith(1, 2, 3, 4, 5, 0);
    assertThat(t.remaining()).isZero();
    assertThat(t.read(dst, 0, 0)).isZero();
    assertThatThrownBy(() -> t.read(dst, 0, 1))
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> assertThat(e.getType()).isEqualTo(TTransportException.END_OF_FILE));
    // The caller's buffer is read in place and its position left alone.
    assertThat(payload.position()).isEqualTo(2);
    assertThat(payload.remaining()).isEqualTo(5);
  }

  @Test
  void readAllPastTheFrameFailsInsteadOfBlocking() throws Exception {
    FrameInputTransport t = FrameInputTransport.of(CONFIG, ByteBuffer.wrap(new byte[] {1, 2}));
    assertThatThrownBy(() -> t.readAll(new byte[3], 0, 3))
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> assertThat(e.getType()).isEqualTo(TTransportException.END_OF_FILE));
  }

  @Test
  void isReadOnlyAndAlwaysOpen() throws Exception {
    FrameInputTransport t = FrameInputTransport.of(CONFIG, ByteBuffer.wrap(new byte[] {1}));
    assertThat(t.isOpen()).isTrue();
    t.close();
    assertThat(t.isOpen()).isTrue();
    assertThatThrownBy(() -> t.write(new byte[1], 0, 1)).isInstanceOf(TTransportException.class);
  }

  @Test
  void heapFramesOfferTheBufferFastPath() throws Exception {
    byte[] backing = {7, 7, 7, 10, 20, 30};
    ByteBuffer whole = ByteBuffer.wrap(backing);
    whole.position(3);
    FrameInputTransport t = FrameInputTransport.of(CONFIG, whole.slice());
    assertThat(t.getBuffer()).isSameAs(backing);
    assertThat(t.getBufferPosition()).isEqualTo(3);
    assertThat(t.getBytesRemainingInBuffer()).isEqualTo(3);
    t.consumeBuffer(2);
    assertThat(t.getBufferPosition()).isEqualTo(5);
    assertThat(t.getBytesRemainingInBuffer()).isEqualTo(1);
    byte[] one = new byte[1];
    t.read(one, 0, 1);
    assertThat(one[0]).isEqualTo((byte) 30);
  }

  @Test
  void directFramesDoNotOfferTheFastPathButStillDecode() throws Exception {
    byte[] message =
        encode(
            new TBinaryProtocol.Factory(),
            p -> {
              p.writeMessageBegin(new TMessage("echo", TMessageType.CALL, 42));
              p.writeString("héllo");
              p.writeBinary(ByteBuffer.wrap(new byte[] {1, 2, 3}));
              p.writeMessageEnd();
            });
    ByteBuffer direct = ByteBuffer.allocateDirect(message.length);
    direct.put(message).flip();
    FrameInputTransport t = FrameInputTransport.of(CONFIG, direct);
    assertThat(t.getBuffer()).isNull();
    assertThat(t.getBytesRemainingInBuffer()).isEqualTo(-1);

    TProtocol p = new TBinaryProtocol(t);
    TMessage m = p.readMessageBegin();
    assertThat(m.name).isEqualTo("echo");
    assertThat(m.seqid).isEqualTo(42);
    assertThat(p.readString()).isEqualTo("héllo");
    ByteBuffer bin = p.readBinary();
    assertThat(bin.remaining()).isEqualTo(3);
    assertThat(t.remaining()).isZero();
  }

  @Test
  void resetRebindsTheBudgetSoALongConnectionNeverTripsTheLimit() throws Exception {
    // A configuration whose message size limit is smaller than the sum of all frames, as it is
    // on a connection that lives for millions of calls.
    TConfiguration small = new TConfiguration(64, 64, TConfiguration.DEFAULT_RECURSION_DEPTH);
    byte[] message =
        encode(
            new TBinaryProtocol.Factory(),
            p -> {
              p.writeMessageBegin(new TMessage("m", TMessageType.CALL, 1));
              p.writeString("0123456789");
              p.writeMessageEnd();
            });
    assertThat(message.length).isLessThan(64);
    ByteBuffer frame = ByteBuffer.wrap(message);
    FrameInputTransport t = new FrameInputTransport(small);
    TProtocol p = new TBinaryProtocol(t);
    for (int i = 0; i < 1_000_000; i++) {
      t.reset(frame);
      p.readMessageBegin();
      if (p.readString().length() != 10) {
        throw new AssertionError("frame " + i + " decoded wrongly");
      }
      p.readMessageEnd();
    }
    assertThat(t.remaining()).isZero();
  }

  @Test
  void aFrameLargerThanTheMessageSizeLimitIsRefused() throws Exception {
    TConfiguration small = new TConfiguration(16, 16, TConfiguration.DEFAULT_RECURSION_DEPTH);
    FrameInputTransport t = FrameInputTransport.of(small, ByteBuffer.wrap(new byte[16]));
    assertThatThrownBy(() -> t.reset(ByteBuffer.wrap(new byte[17])))
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> assertThat(e.getType()).isEqualTo(TTransportException.MESSAGE_SIZE_LIMIT));
  }

  @Test
  void configurationIsNeverNull() throws Exception {
    assertThat(new FrameInputTransport(null).getConfiguration()).isNotNull();
    TConfiguration c = new TConfiguration(1000, 1000, 7);
    assertThat(FrameInputTransport.of(c, ByteBuffer.allocate(1)).getConfiguration()).isSameAs(c);
  }

  /** CVE-2020-13949: a container header may not declare more elements than the frame can hold. */
  @ParameterizedTest
  @ValueSource(strings = {"binary", "compact"})
  void hugeListHeaderIsRejectedBeforeAllocation(String protocol) throws Exception {
    TProtocolFactory f = factory(protocol);
    byte[] message =
        encode(
            f,
            p -> {
              p.writeMessageBegin(new TMessage("m", TMessageType.CALL, 1));
              p.writeListBegin(new TList(TType.I64, Integer.MAX_VALUE));
              p.writeI64(1);
            });
    TProtocol p = f.getProtocol(FrameInputTransport.of(CONFIG, ByteBuffer.wrap(message)));
    p.readMessageBegin();
    assertThatThrownBy(p::readListBegin)
        .isInstanceOfAny(TTransportException.class, TProtocolException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"binary", "compact"})
  void hugeStringHeaderIsRejectedBeforeAllocation(String protocol) throws Exception {
    TProtocolFactory f = factory(protocol);
    byte[] message =
        encode(
            f,
            p -> {
              p.writeMessageBegin(new TMessage("m", TMessageType.CALL, 1));
              p.writeString("abc");
            });
    // Patch the string length to claim 1 GB: binary uses an i32, compact a varint.
    byte[] forged = forgeStringLength(protocol, message);
    TProtocol p = f.getProtocol(FrameInputTransport.of(CONFIG, ByteBuffer.wrap(forged)));
    p.readMessageBegin();
    assertThatThrownBy(p::readString)
        .isInstanceOfSatisfying(
            TTransportException.class,
            e -> assertThat(e.getType()).isEqualTo(TTransportException.MESSAGE_SIZE_LIMIT));
  }

  private static byte[] forgeStringLength(String protocol, byte[] message) {
    int len = message.length;
    if (protocol.equals("binary")) {
      byte[] b = message.clone();
      ByteBuffer.wrap(b).putInt(len - 3 - 4, 1 << 30);
      return b;
    }
    // compact: the varint 3 sits before "abc"; replace it by the 5-byte varint of 2^30.
    byte[] b = new byte[len + 4];
    System.arraycopy(message, 0, b, 0, len - 4);
    byte[] varint = {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x04};
    System.arraycopy(varint, 0, b, len - 4, 5);
    System.arraycopy(message, len - 3, b, len + 1, 3);
    return b;
  }

  /**
   * The size check compares a declared size against the bytes still unread in the frame, not the
   * whole frame: after most of a frame is consumed, a list header that only the whole frame could
   * hold is refused by the size check, before any element is read.
   */
  @ParameterizedTest
  @ValueSource(strings = {"binary", "compact"})
  void listHeaderIsCheckedAgainstTheBytesLeftInTheFrame(String protocol) throws Exception {
    TProtocolFactory f = factory(protocol);
    String filler = "x".repeat(800);
    byte[] message =
        encode(
            f,
            p -> {
              p.writeMessageBegin(new TMessage("m", TMessageType.CALL, 1));
              p.writeString(filler);
              p.writeListBegin(new TList(TType.I32, 200)); // >= 200 bytes: more than is left
              p.writeI32(1);
            });
    for (Function<byte[], ByteBuffer> wrap :
        java.util.List.<Function<byte[], ByteBuffer>>of(
            ByteBuffer::wrap, b -> ByteBuffer.allocateDirect(b.length).put(b).flip())) {
      TProtocol p = f.getProtocol(FrameInputTransport.of(CONFIG, wrap.apply(message)));
      p.readMessageBegin();
      assertThat(p.readString()).isEqualTo(filler);
      assertThatThrownBy(p::readListBegin)
          .isInstanceOfSatisfying(
              TTransportException.class,
              e -> assertThat(e.getType()).isEqualTo(TTransportException.MESSAGE_SIZE_LIMIT));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"binary", "compact"})
  void recursionLimitOfTheConfigurationIsHonoured(String protocol) throws Exception {
    TProtocolFactory f = factory(protocol);
    TConfiguration limit5 = new TConfiguration(1 << 20, 1 << 20, 5);
    byte[] depth5 = encode(f, p -> nest(p, 5));
    byte[] depth6 = encode(f, p -> nest(p, 6));

    TProtocol ok = f.getProtocol(FrameInputTransport.of(limit5, ByteBuffer.wrap(depth5)));
    TProtocolUtil.skip(ok, TType.STRUCT);

    TProtocol direct = f.getProtocol(FrameInputTransport.of(limit5, ByteBuffer.wrap(depth6)));
    for (int i = 0; i < 5; i++) {
      direct.incrementRecursionDepth();
    }
    assertThatThrownBy(direct::incrementRecursionDepth)
        .isInstanceOf(TProtocolException.class)
        .hasMessageContaining("exceeds limit 5");
  }

  /** Since libthrift 0.25, skipping unknown fields also counts depth against the limit. */
  @Tag(LIBTHRIFT_CURRENT)
  @ParameterizedTest
  @ValueSource(strings = {"binary", "compact"})
  void skippingHonoursTheRecursionLimit(String protocol) throws Exception {
    TProtocolFactory f = factory(protocol);
    TConfiguration limit5 = new TConfiguration(1 << 20, 1 << 20, 5);
    byte[] depth6 = encode(f, p -> nest(p, 6));
    TProtocol deep = f.getProtocol(FrameInputTransport.of(limit5, ByteBuffer.wrap(depth6)));
    assertThatThrownBy(() -> TProtocolUtil.skip(deep, TType.STRUCT))
        .isInstanceOfSatisfying(
            TProtocolException.class,
            e -> assertThat(e.getType()).isEqualTo(TProtocolException.DEPTH_LIMIT));
  }

  /** Writes {@code depth} structs, each holding the next in field 1. */
  private static void nest(TProtocol p, int depth) throws TException {
    p.writeStructBegin(new TStruct("N"));
    if (depth > 1) {
      p.writeFieldBegin(new TField("other", TType.STRUCT, (short) 1));
      nest(p, depth - 1);
      p.writeFieldEnd();
    }
    p.writeFieldStop();
    p.writeStructEnd();
  }
}
