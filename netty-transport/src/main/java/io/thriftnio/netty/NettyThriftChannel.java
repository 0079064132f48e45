package io.thriftnio.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.util.internal.ThreadExecutorMap;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.internal.client.CodecChannel;
import io.thriftnio.core.wire.ReplyEvent;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;

/**
 * An asynchronous, pipelined {@link ThriftChannel} over one Netty connection, opened by {@link
 * NettyClientIo#openChannel}, for every wire transport (framed, unframed, HTTP). The call table
 * (ordering, timers, limits, failures) and the wire are core's, the same as on every transport;
 * this class moves their bytes:
 *
 * <pre>
 *  exchange(a) exchange(b) send(c, oneway) exchange(d)
 *     -&gt; [a][b][c][d] on the wire, in call order, one flush per event-loop turn
 *     &lt;- [A][B][D]    responses, in the same order    A completes a, B b, D d
 * </pre>
 *
 * <p>Writes run on the channel's event loop, each request behind its head (a length prefix, an HTTP
 * head) in one composite buffer, and stop while the channel is not writable (its outbound buffer is
 * above Netty's high water mark); the messages wait in the call table, counted against {@code
 * maxCallsInFlightPerConnection}, until it drains. Replies come from the pipeline's {@code
 * ThriftFrameDecoder}. Futures complete on the options' callback executor. Thread-safe; {@link
 * #close()} is idempotent.
 */
final class NettyThriftChannel extends CodecChannel {

  private static final long CLOSE_WAIT_MILLIS = 3000;

  private final Handler handler = new Handler();
  private volatile Channel channel;
  private ChannelHandlerContext ctx; // set before connect() returns; used on the event loop

  NettyThriftChannel(
      InetSocketAddress address,
      ClientOptions options,
      ScheduledExecutorService timer,
      Runnable onClose) {
    super(address, options, timer, onClose);
  }

  /** The pipeline's decoder and last handler: reads replies into the call table. */
  void addTo(ChannelPipeline pipeline, int maxFrameSize) {
    pipeline
        .addLast("thriftFrameDecoder", ThriftFrameDecoder.client(codec, maxFrameSize))
        .addLast("thriftClientHandler", handler);
  }

  /**
   * Closes the connection; every pending call fails. Idempotent. Off the event loops it returns
   * once the connection is closed (a few seconds at most); on any event loop it does not wait, so
   * it never blocks a loop that another channel's close is queued behind.
   */
  @Override
  public void close() {
    super.close();
    Channel ch = channel;
    if (ch != null && ThreadExecutorMap.currentExecutor() == null) {
      ch.closeFuture().awaitUninterruptibly(CLOSE_WAIT_MILLIS);
    }
  }

  @Override
  protected boolean connectionOpen() {
    Channel ch = channel;
    return ch != null && ch.isActive();
  }

  @Override
  public void execute(Runnable drain) {
    channel.eventLoop().execute(drain);
  }

  @Override
  protected void send(byte[] head, ByteBuffer payload, Consumer<Throwable> done) {
    ByteBuf request =
        head.length == 0
            ? Unpooled.wrappedBuffer(payload)
            : Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(head), Unpooled.wrappedBuffer(payload));
    ctx.write(request)
        .addListener((ChannelFutureListener) f -> done.accept(f.isSuccess() ? null : f.cause()));
  }

  @Override
  public void flush() {
    ctx.flush();
  }

  @Override
  public boolean writable() {
    return channel.isWritable();
  }

  @Override
  public void closeConnection() {
    Channel ch = channel;
    if (ch != null) {
      ch.close();
    }
  }

  /** The connection end of the call table. */
  private final class Handler extends ChannelInboundHandlerAdapter {
    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      NettyThriftChannel.this.ctx = ctx;
      channel = ctx.channel();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof ReplyEvent) {
        onReplyEvent((ReplyEvent) msg);
        return;
      }
      ByteBuf reply = (ByteBuf) msg;
      ByteBuffer response;
      try {
        response = ByteBuffer.wrap(ByteBufUtil.getBytes(reply));
      } finally {
        reply.release();
      }
      onReply(response);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      if (ctx.channel().isWritable()) {
        calls.writable();
      }
      ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      connectionEnded(
          cause instanceof InvalidFrameException
              ? ((InvalidFrameException) cause).getCause()
              : cause);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
      connectionEnded(null);
      super.channelInactive(ctx);
    }
  }
}
