package io.thriftnio.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.internal.ThreadExecutorMap;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.internal.client.PipelinedChannel;
import io.thriftnio.core.internal.client.UnframedReplies;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;

/**
 * An asynchronous, pipelined {@link ThriftChannel} over one Netty connection, opened by {@link
 * NettyClientResources#openChannel}. The call table (ordering, timers, limits, failures) is core's,
 * the same as on every transport; this class moves its bytes:
 *
 * <pre>
 *  exchange(a) exchange(b) send(c, oneway) exchange(d)
 *     -&gt; [a][b][c][d] on the wire, in call order, one flush per event-loop turn
 *     &lt;- [A][B][D]    responses, in the same order    A completes a, B b, D d
 * </pre>
 *
 * <p>Writes run on the channel's event loop and stop while the channel is not writable (its
 * outbound buffer is above Netty's high water mark); the messages wait in the call table, counted
 * against {@code maxPendingCalls}, until it drains. Futures complete on the options' callback
 * executor. Thread-safe; {@link #close()} is idempotent.
 */
public final class NettyThriftChannel extends PipelinedChannel {

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

  /** The pipeline's last handler: reads responses into the call table. */
  ChannelInboundHandlerAdapter handler() {
    return handler;
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
  public void write(ByteBuffer payload, Consumer<Throwable> done) {
    ctx.write(Unpooled.wrappedBuffer(payload))
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
      ByteBuf frame = (ByteBuf) msg;
      ByteBuffer response;
      try {
        response = ByteBuffer.wrap(ByteBufUtil.getBytes(frame));
      } finally {
        frame.release();
      }
      calls.onResponse(response);
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
              : cause instanceof InvalidMessageException
                  ? UnframedReplies.invalid(cause.getMessage())
                  : cause);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
      connectionEnded(null);
      super.channelInactive(ctx);
    }
  }
}
