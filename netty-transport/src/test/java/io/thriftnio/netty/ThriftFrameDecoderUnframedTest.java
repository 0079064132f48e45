package io.thriftnio.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ResourceLeakDetector;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.util.internal.Framing;
import io.thriftnio.core.wire.Envelope;
import io.thriftnio.core.wire.WireSettings;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.conformance.RawConnection;
import io.thriftnio.testkit.gen.BenchService;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.protocol.TType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link ThriftFrameDecoder} on a server accepting framed and unframed peers. */
@Timeout(10)
class ThriftFrameDecoderUnframedTest {

  private LeakTrackingAllocator alloc;
  private EmbeddedChannel channel;
  private ThriftFrameDecoder decoder;
  private final List<Object> events = new ArrayList<>();
  private final List<Object> userEvents = new ArrayList<>();

  @BeforeAll
  static void paranoid() {
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
  }

  @BeforeEach
  void setUp() {
    alloc = new LeakTrackingAllocator();
    decoder =
        ThriftFrameDecoder.server(
            WireSettings.of(
                Framing.DEFAULT_MAX_FRAME_SIZE,
                EnumSet.allOf(WireKind.class),
                new TBinaryProtocol.Factory(),
                "/"),
            () -> {});
    channel = new EmbeddedChannel();
    channel.config().setAllocator(alloc);
    channel
        .pipeline()
        .addLast(decoder)
        .addLast(
            new ChannelInboundHandlerAdapter() {
              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof WireMessages) {
                  events.add(msg); // read in order with the requests, as the server handler
                } else {
                  ctx.fireChannelRead(msg);
                }
              }

              @Override
              public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                userEvents.add(evt);
              }
            });
  }

  @AfterEach
  void noLeaks() {
    channel.finishAndReleaseAll();
    alloc.assertAllReleased();
  }

  private ByteBuf bytes(byte[] b) {
    return alloc.buffer(b.length).writeBytes(b);
  }

  private List<byte[]> readMessages() {
    List<byte[]> messages = new ArrayList<>();
    ByteBuf m;
    while ((m = channel.readInbound()) != null) {
      try {
        byte[] b = new byte[m.readableBytes()];
        m.getBytes(m.readerIndex(), b);
        messages.add(b);
      } finally {
        m.release();
      }
    }
    return messages;
  }

  private static byte[] call(TProtocolFactory protocol, int seq, int size) throws Exception {
    return RawConnection.encodeCall(
        protocol, "echo", seq, new BenchService.echo_args(Payloads.of(size, seq)));
  }

  private void twoMessagesOneByteAtATime(TProtocolFactory protocol) throws Exception {
    byte[] first = call(protocol, 1, 300);
    byte[] second = call(protocol, 2, 0);
    ByteBuffer wire = ByteBuffer.allocate(first.length + second.length).put(first).put(second);
    for (byte b : wire.array()) {
      channel.writeInbound(bytes(new byte[] {b}));
    }
    assertThat(readMessages()).containsExactly(first, second);
    assertThat(events)
        .singleElement()
        .satisfies(
            e ->
                assertThat(((WireMessages.WireDetected) e).envelope())
                    .as("replies leave unframed")
                    .isSameAs(Envelope.UNFRAMED));
    assertThat(userEvents).as("nothing of the wire is a user event").isEmpty();
    assertThat(decoder.partialSinceNanos()).isZero();
  }

  @Test
  void passesOnBinaryMessagesWholeFromOneByteReads() throws Exception {
    twoMessagesOneByteAtATime(new TBinaryProtocol.Factory());
  }

  @Test
  void passesOnCompactMessagesWholeFromOneByteReads() throws Exception {
    twoMessagesOneByteAtATime(new TCompactProtocol.Factory());
  }

  @Test
  void passesOnManyMessagesOfOneRead() throws Exception {
    TProtocolFactory protocol = new TCompactProtocol.Factory();
    ByteBuffer wire = ByteBuffer.allocate(10_000);
    List<byte[]> sent = new ArrayList<>();
    for (int i = 1; i <= 20; i++) {
      byte[] c = call(protocol, i, i * 7);
      sent.add(c);
      wire.put(c);
    }
    channel.writeInbound(bytes(java.util.Arrays.copyOf(wire.array(), wire.position())));
    assertThat(readMessages()).containsExactlyElementsOf(sent);
  }

  @Test
  void aPartialMessageIsAPartialFrameForTheFrameTimeout() throws Exception {
    byte[] c = call(new TBinaryProtocol.Factory(), 1, 10);
    channel.writeInbound(bytes(java.util.Arrays.copyOf(c, c.length - 1)));
    assertThat(decoder.partialSinceNanos()).isNotZero();
    channel.writeInbound(bytes(new byte[] {c[c.length - 1]}));
    assertThat(decoder.partialSinceNanos()).isZero();
    assertThat(readMessages()).containsExactly(c);
  }

  @Test
  void framedPeersAreFramedStill() throws Exception {
    byte[] c = call(new TBinaryProtocol.Factory(), 1, 10);
    channel.writeInbound(bytes(RawConnection.frame(c)));
    assertThat(readMessages()).containsExactly(c);
    assertThat(events).as("no event: replies stay framed").isEmpty();
  }

  private static byte[] twoGigabyteString() {
    ByteBuffer b = ByteBuffer.allocate(64);
    b.putInt(0x80010001).putInt(4).put("echo".getBytes()).putInt(9);
    b.put((byte) TType.STRING).putShort((short) 1).putInt(Integer.MAX_VALUE);
    return java.util.Arrays.copyOf(b.array(), b.position());
  }

  @Test
  void refusesADeclaredTwoGigabyteStringWithItsHeader() {
    assertThatThrownBy(() -> channel.writeInbound(bytes(twoGigabyteString())))
        .isInstanceOfSatisfying(
            InvalidMessageException.class,
            e -> {
              assertThat(e.header().seqid).isEqualTo(9);
              assertThat(e.getMessage())
                  .contains("invalid unframed BINARY message from")
                  .contains("a string of 2147483647 bytes at byte 23")
                  .contains("maxMessageSize 16384000");
            });
    channel.writeInbound(bytes(new byte[] {1, 2, 3}));
    assertThat(readMessages()).as("later bytes discarded").isEmpty();
  }

  @Test
  void refusingADeclaredTwoGigabyteStringAllocatesNothingLarge() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long tid = Thread.currentThread().getId();
    long allocated = Long.MAX_VALUE;
    // The first refusal loads classes and starts the logging: measure the runs after it.
    for (int run = 0; run < 3; run++) {
      setUpAgain();
      ByteBuf hostile = bytes(twoGigabyteString());
      long before = threads.getThreadAllocatedBytes(tid);
      try {
        channel.writeInbound(hostile);
      } catch (InvalidMessageException expected) {
        allocated = Math.min(allocated, threads.getThreadAllocatedBytes(tid) - before);
      }
    }
    assertThat(allocated).as("bytes allocated refusing the message").isLessThan(1 << 20);
  }

  private void setUpAgain() {
    channel.finishAndReleaseAll();
    alloc.assertAllReleased();
    events.clear();
    setUp();
  }

  @Test
  void refusesFirstBytesOfNoAcceptedTransport() {
    assertThatThrownBy(() -> channel.writeInbound(bytes(new byte[] {(byte) 0xfe, 1, 2, 3})))
        .isInstanceOf(InvalidMessageException.class)
        .hasMessageContaining("refused: first bytes fe 01 02 03 match no accepted transport")
        .hasMessageContaining("(accepted: [FRAMED, UNFRAMED, HTTP, HEADER, SASL])");
    channel.writeInbound(bytes(new byte[] {0, 0, 0, 1, 0}));
    assertThat(readMessages()).as("later bytes discarded").isEmpty();
  }
}
