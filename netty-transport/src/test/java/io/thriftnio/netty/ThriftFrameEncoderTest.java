package io.thriftnio.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.EncoderException;
import io.thriftnio.core.util.internal.FrameSizeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ThriftFrameEncoderTest {

  private LeakTrackingAllocator alloc;
  private EmbeddedChannel channel;

  @BeforeEach
  void setUp() {
    alloc = new LeakTrackingAllocator();
    channel = new EmbeddedChannel();
    channel.config().setAllocator(alloc);
    channel.pipeline().addLast(new ThriftFrameEncoder(16));
  }

  @AfterEach
  void noLeaks() {
    channel.finishAndReleaseAll();
    alloc.assertAllReleased();
  }

  @Test
  void prefixesThePayloadWithoutCopyingIt() {
    ByteBuf payload = alloc.buffer().writeBytes(new byte[] {1, 2, 3, 4, 5});
    assertThat(channel.writeOutbound(payload)).isTrue();
    ByteBuf header = channel.readOutbound();
    ByteBuf body = channel.readOutbound();
    try {
      assertThat(header.readInt()).isEqualTo(5);
      assertThat(body).as("the same buffer").isSameAs(payload);
      assertThat(body.readableBytes()).isEqualTo(5);
    } finally {
      header.release();
      body.release();
    }
  }

  @Test
  void acceptsTheLimitAndRefusesOneByteMoreOrNothing() {
    assertThat(channel.writeOutbound(alloc.buffer().writeZero(16))).isTrue();
    channel.releaseOutbound();
    assertThatThrownBy(() -> channel.writeOutbound(alloc.buffer().writeZero(17)))
        .isInstanceOf(EncoderException.class)
        .hasCauseInstanceOf(FrameSizeException.class)
        .hasMessageContaining("frame length 17")
        .hasMessageContaining("maxFrameSize 16");
    assertThatThrownBy(() -> channel.writeOutbound(alloc.buffer()))
        .hasCauseInstanceOf(FrameSizeException.class)
        .hasMessageContaining("frame length 0");
  }

  @Test
  void roundTripsThroughTheDecoder() {
    EmbeddedChannel wire = new EmbeddedChannel();
    wire.config().setAllocator(alloc);
    wire.pipeline().addLast(ThriftFrameDecoder.client(16));
    channel.writeOutbound(alloc.buffer().writeBytes(new byte[] {9, 8, 7}));
    ByteBuf b;
    while ((b = channel.readOutbound()) != null) {
      wire.writeInbound(b);
    }
    ByteBuf frame = wire.readInbound();
    try {
      assertThat(frame.readableBytes()).isEqualTo(3);
      assertThat(frame.getByte(frame.readerIndex())).isEqualTo((byte) 9);
    } finally {
      frame.release();
      wire.finishAndReleaseAll();
    }
  }
}
