package io.thriftnio.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.MessageToMessageEncoder;
import io.thriftnio.core.internal.FrameLength;
import io.thriftnio.core.util.internal.Framing;
import java.util.List;
import org.apache.thrift.transport.TTransportException;

/**
 * Frames outbound Thrift messages ({@code TFramedTransport}): each {@link ByteBuf} written is one
 * message payload, and leaves prefixed by its length as a signed 32-bit big-endian integer.
 *
 * <pre>
 * WRITE                    ON THE WIRE
 * +-----------------+      +----------+-----------------+
 * | 80 01 00 01 ... |  =&gt;  | 00000005 | 80 01 00 01 ... |
 * +-----------------+      +----------+-----------------+
 *   payload (5 B)            length     payload (not copied)
 * </pre>
 *
 * <p>The payload is not copied: a 4-byte prefix buffer and the payload go out as two buffers,
 * written by one gathering write. An empty payload, or one above {@code maxFrameSize}, fails the
 * write with a {@code TTransportException} of type {@code CORRUPTED_DATA} naming the length and the
 * limit (wrapped in an {@link io.netty.handler.codec.EncoderException}) instead of sending a frame
 * no peer would accept.
 *
 * <p>Public as {@link ThriftFrameCodec}, for a pipeline of your own. Stateless and sharable.
 * Messages of other types pass through untouched.
 */
@ChannelHandler.Sharable
final class ThriftFrameEncoder extends MessageToMessageEncoder<ByteBuf> {

  private final int maxFrameSize;

  /** An encoder with libthrift's default limit, 16,384,000 bytes. */
  ThriftFrameEncoder() {
    this(Framing.DEFAULT_MAX_FRAME_SIZE);
  }

  /**
   * @param maxFrameSize the largest payload sent, in bytes; must be positive
   */
  ThriftFrameEncoder(int maxFrameSize) {
    super(ByteBuf.class);
    this.maxFrameSize = Framing.checkMaxFrameSize(maxFrameSize);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise)
      throws Exception {
    if (msg instanceof Framed) {
      // Already framed by the server's call path: one buffer, no prefix to add, no combined
      // promise.
      ctx.write(((Framed) msg).frame, promise);
      return;
    }
    super.write(ctx, msg, promise);
  }

  /**
   * A frame whose length prefix is already written, from {@link ThriftServerHandler}: passed on as
   * it is.
   */
  static final class Framed {
    final ByteBuf frame;

    Framed(ByteBuf frame) {
      this.frame = frame;
    }
  }

  @Override
  protected void encode(ChannelHandlerContext ctx, ByteBuf payload, List<Object> out)
      throws TTransportException {
    int length =
        FrameLength.check(payload.readableBytes(), maxFrameSize, ctx.channel().remoteAddress());
    out.add(ctx.alloc().buffer(Framing.HEADER_SIZE).writeInt(length));
    out.add(payload.retain());
  }
}
