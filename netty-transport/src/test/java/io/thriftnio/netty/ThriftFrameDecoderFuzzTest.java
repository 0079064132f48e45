package io.thriftnio.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.testkit.fuzz.FrameInputs;
import io.thriftnio.testkit.fuzz.Fuzz;
import io.thriftnio.testkit.fuzz.LogWatch;
import java.util.ArrayList;
import java.util.List;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ThriftFrameDecoder} against random streams ({@link FrameInputs}) fed in random pieces: it
 * emits exactly the complete valid frames of the stream, in order; a bad length raises one {@link
 * InvalidFrameException} caused by a {@link FrameSizeException} with that length, and nothing after
 * it; and every buffer is released. Long run: see {@link Fuzz}.
 */
@Timeout(3600) // a long run sets its own budget (Fuzz.SECONDS)
class ThriftFrameDecoderFuzzTest {

  @Test
  void emitsExactlyTheValidFramesAndRejectsBadLengths() {
    List<String> errors;
    try (LogWatch log = new LogWatch()) { // one WARN line per bad length: kept out of the build log
      Fuzz.of("ThriftFrameDecoder", 20261122L, 10_000)
          .run(
              (index, random, input) -> {
                int max = random.nextBoolean() ? 1 + random.nextInt(600) : 4096;
                FrameInputs.Stream stream = FrameInputs.next(random, max);
                input.record(stream.kind() + ", maxFrameSize " + max, stream.bytes());
                check(stream.bytes(), max, FrameInputs.pieces(random, stream.bytes().length));
              });
      errors = log.unexpectedErrors();
    }
    assertThat(errors).as("errors logged").isEmpty();
  }

  private static void check(byte[] bytes, int max, List<Integer> pieces) {
    LeakTrackingAllocator alloc = new LeakTrackingAllocator();
    List<byte[]> frames = new ArrayList<>();
    List<Throwable> errors = new ArrayList<>();
    EmbeddedChannel channel = new EmbeddedChannel();
    channel.config().setAllocator(alloc);
    channel
        .pipeline()
        .addLast(ThriftFrameDecoder.server(max, new TBinaryProtocol.Factory()))
        .addLast(
            new ChannelInboundHandlerAdapter() {
              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf frame = (ByteBuf) msg;
                try {
                  byte[] b = new byte[frame.readableBytes()];
                  frame.readBytes(b);
                  frames.add(b);
                } finally {
                  frame.release();
                }
              }

              @Override
              public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                errors.add(cause);
              }
            });
    int at = 0;
    for (int piece : pieces) {
      channel.writeInbound(alloc.buffer(piece).writeBytes(bytes, at, piece));
      at += piece;
    }
    channel.finishAndReleaseAll();

    FrameInputs.Expected expected = FrameInputs.expected(bytes, max);
    assertThat(frames).as("frames").hasSameSizeAs(expected.frames());
    for (int i = 0; i < frames.size(); i++) {
      assertThat(frames.get(i)).as("frame %d", i).isEqualTo(expected.frames().get(i));
    }
    if (expected.rejectedLength() == null) {
      assertThat(errors).as("errors").isEmpty();
    } else {
      assertThat(errors).as("errors").hasSize(1);
      assertThat(errors.get(0)).isInstanceOf(InvalidFrameException.class);
      assertThat(errors.get(0).getCause())
          .isInstanceOfSatisfying(
              FrameSizeException.class,
              e ->
                  assertThat(e.getMessage()).contains(Integer.toString(expected.rejectedLength())));
    }
    alloc.assertAllReleased();
  }
}
