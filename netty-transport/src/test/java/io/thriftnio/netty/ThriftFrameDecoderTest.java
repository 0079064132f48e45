package io.thriftnio.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ResourceLeakDetector;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.conformance.RawConnection;
import io.thriftnio.testkit.gen.BenchService;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ThriftFrameDecoderTest {

  private static final int MAX = 1024;

  private LeakTrackingAllocator alloc;
  private EmbeddedChannel channel;

  @BeforeAll
  static void paranoid() {
    // The build sets -Dio.netty.leakDetection.level=paranoid; this keeps an IDE run as strict.
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
  }

  @BeforeEach
  void setUp() {
    alloc = new LeakTrackingAllocator();
    channel = newChannel(ThriftFrameDecoder.server(MAX, new TBinaryProtocol.Factory()));
  }

  private EmbeddedChannel newChannel(ThriftFrameDecoder decoder) {
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.config().setAllocator(alloc);
    ch.pipeline().addLast(decoder);
    return ch;
  }

  @AfterEach
  void noLeaks() {
    channel.finishAndReleaseAll();
    alloc.assertAllReleased();
  }

  private ByteBuf bytes(byte[] b) {
    return alloc.buffer(b.length).writeBytes(b);
  }

  private static byte[] frame(int payloadLength, int seed) {
    byte[] payload = new byte[payloadLength];
    for (int i = 0; i < payloadLength; i++) {
      payload[i] = (byte) (seed + i);
    }
    return RawConnection.frame(payload);
  }

  private static byte[] payloadOf(ByteBuf frame) {
    byte[] b = new byte[frame.readableBytes()];
    frame.getBytes(frame.readerIndex(), b);
    return b;
  }

  private List<byte[]> readFrames() {
    List<byte[]> frames = new ArrayList<>();
    ByteBuf f;
    while ((f = channel.readInbound()) != null) {
      try {
        frames.add(payloadOf(f));
      } finally {
        f.release();
      }
    }
    return frames;
  }

  @Test
  void decodesAFrameDeliveredOneByteAtATime() {
    byte[] wire = frame(37, 5);
    for (int i = 0; i < wire.length; i++) {
      channel.writeInbound(bytes(new byte[] {wire[i]}));
      if (i < wire.length - 1) {
        Object none = channel.readInbound();
        assertThat(none).as("no frame after %d bytes", i + 1).isNull();
      }
    }
    List<byte[]> frames = readFrames();
    assertThat(frames).hasSize(1);
    assertThat(frames.get(0)).isEqualTo(Arrays.copyOfRange(wire, 4, wire.length));
  }

  @Test
  void decodesOneHundredFramesFromOneBuffer() {
    ByteBuf all = alloc.buffer();
    for (int i = 1; i <= 100; i++) {
      all.writeBytes(frame(i, i));
    }
    channel.writeInbound(all);
    List<byte[]> frames = readFrames();
    assertThat(frames).hasSize(100);
    for (int i = 1; i <= 100; i++) {
      assertThat(frames.get(i - 1)).isEqualTo(Arrays.copyOfRange(frame(i, i), 4, 4 + i));
    }
  }

  @Test
  void framesAreSlicesOfTheReceivedBufferNotCopies() {
    ByteBuf in = bytes(frame(16, 1));
    channel.writeInbound(in);
    ByteBuf f = channel.readInbound();
    try {
      assertThat(f.unwrap()).as("a slice of the cumulation").isNotNull();
      assertThat(alloc.allocations()).as("nothing allocated by the decoder").isEqualTo(1);
    } finally {
      f.release();
    }
  }

  @Test
  void acceptsExactlyMaxFrameSize() {
    channel.writeInbound(bytes(frame(MAX, 0)));
    assertThat(readFrames()).singleElement().satisfies(p -> assertThat(p).hasSize(MAX));
  }

  @Test
  void rejectsMaxPlusOneBeforeThePayloadArrives() {
    byte[] lengthOnly = Arrays.copyOf(frame(MAX + 1, 0), 4);
    assertThatThrownBy(() -> channel.writeInbound(bytes(lengthOnly)))
        .isInstanceOfSatisfying(
            InvalidFrameException.class,
            e -> {
              FrameSizeException cause = e.getCause();
              assertThat(cause.length()).isEqualTo(MAX + 1);
              assertThat(cause.maxFrameSize()).isEqualTo(MAX);
              assertThat(e).hasMessageContaining("frame length 1025").hasMessageContaining("1024");
              assertThat(e.header()).isNull();
            });
    assertThat(alloc.allocations()).as("nothing allocated for the declared length").isEqualTo(1);
    // Everything after the bad length is discarded, including what looks like a good frame.
    channel.writeInbound(bytes(frame(8, 1)));
    assertThat(readFrames()).isEmpty();
  }

  @Test
  void rejectsZeroLength() {
    assertThatThrownBy(() -> channel.writeInbound(bytes(new byte[] {0, 0, 0, 0})))
        .isInstanceOf(InvalidFrameException.class)
        .hasMessageContaining("frame length 0")
        .hasMessageContaining("expected: 1..1024");
    assertThat(readFrames()).isEmpty();
  }

  @Test
  void rejectsNegativeLength() {
    byte[] negative = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFE, 1, 2, 3};
    assertThatThrownBy(() -> channel.writeInbound(bytes(negative)))
        .isInstanceOfSatisfying(
            InvalidFrameException.class, e -> assertThat(e.getCause().length()).isEqualTo(-2));
    assertThat(readFrames()).isEmpty();
  }

  @Test
  void framesBeforeABadLengthStillPassInOrder() {
    ByteBuf in = alloc.buffer();
    in.writeBytes(frame(3, 1)).writeBytes(frame(4, 2)).writeInt(-1).writeBytes(frame(5, 3));
    assertThatThrownBy(() -> channel.writeInbound(in)).isInstanceOf(InvalidFrameException.class);
    List<byte[]> frames = readFrames();
    assertThat(frames).extracting(p -> p.length).containsExactly(3, 4);
  }

  @Test
  void namesAnHttpRequest() {
    assertThatThrownBy(() -> channel.writeInbound(bytes("GET / HTTP/1.1\r\n\r\n".getBytes())))
        .isInstanceOfSatisfying(
            InvalidFrameException.class,
            e -> {
              assertThat(e).hasMessageContaining("HTTP request");
              assertThat(e.header()).as("not a Thrift header").isNull();
            });
  }

  @Test
  void readsTheHeaderOfAnOversizeFrame() throws Exception {
    for (TProtocolFactory protocol :
        new TProtocolFactory[] {new TBinaryProtocol.Factory(), new TCompactProtocol.Factory()}) {
      EmbeddedChannel ch = newChannel(ThriftFrameDecoder.server(MAX, protocol));
      byte[] call =
          RawConnection.encodeCall(
              protocol, "echo", 42, new BenchService.echo_args(Payloads.of(2 * MAX, 1)));
      // Only the first 100 bytes have arrived: enough for the header.
      byte[] head = Arrays.copyOf(RawConnection.frame(call), 100);
      ByteBuf in = alloc.buffer(head.length).writeBytes(head);
      assertThatThrownBy(() -> ch.writeInbound(in))
          .as("%s", protocol.getClass().getSimpleName())
          .isInstanceOfSatisfying(
              InvalidFrameException.class,
              e -> {
                assertThat(e.header()).isNotNull();
                assertThat(e.header().name).isEqualTo("echo");
                assertThat(e.header().seqid).isEqualTo(42);
              });
      ch.finishAndReleaseAll();
    }
  }

  @Test
  void anOversizeFrameWithoutItsHeaderYetHasNoHeader() {
    assertThatThrownBy(() -> channel.writeInbound(bytes(new byte[] {0, 0, 0x10, 0, (byte) 0x80})))
        .isInstanceOfSatisfying(InvalidFrameException.class, e -> assertThat(e.header()).isNull());
  }

  @Test
  void dropsATruncatedFrameWhenTheInputCloses() {
    byte[] wire = frame(50, 1);
    channel.writeInbound(bytes(Arrays.copyOf(wire, 30)));
    Object none = channel.readInbound();
    assertThat(none).isNull();
    assertThat(channel.pipeline().get(ThriftFrameDecoder.class).partialSinceNanos()).isNotZero();
    assertThat(channel.finish()).as("nothing decoded at close").isFalse();
    assertThat(readFrames()).isEmpty();
  }

  @Test
  void reportsPartialFrames() {
    ThriftFrameDecoder decoder = channel.pipeline().get(ThriftFrameDecoder.class);
    assertThat(decoder.partialSinceNanos()).isZero();
    byte[] wire = frame(10, 1);
    channel.writeInbound(bytes(Arrays.copyOf(wire, 2)));
    assertThat(decoder.partialSinceNanos()).isNotZero();
    channel.writeInbound(bytes(Arrays.copyOfRange(wire, 2, wire.length)));
    assertThat(decoder.partialSinceNanos()).isZero();
    assertThat(readFrames()).hasSize(1);
  }

  @Test
  void rejectsAnInvalidLimit() {
    assertThatThrownBy(() -> ThriftFrameDecoder.client(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxFrameSize: 0 (expected: > 0)");
  }

  @Test
  void peekingAtForeignBytesAllocatesNothingLarge() {
    // "GET / HT..." read as a binary header declares a 790 MB method name. The peek must refuse it
    // from the bytes received, not allocate it.
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long tid = Thread.currentThread().getId();
    ByteBuf http = bytes("GET / HTTP/1.1\r\nHost: example\r\n\r\n".getBytes());
    long before = threads.getThreadAllocatedBytes(tid);
    assertThatThrownBy(() -> channel.writeInbound(http)).isInstanceOf(InvalidFrameException.class);
    long allocated = threads.getThreadAllocatedBytes(tid) - before;
    assertThat(allocated).as("bytes allocated rejecting an HTTP request").isLessThan(1 << 20);
  }
}
