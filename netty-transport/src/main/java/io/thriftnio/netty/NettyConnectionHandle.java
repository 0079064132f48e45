package io.thriftnio.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.thriftnio.core.internal.server.ConnectionHandle;
import java.util.concurrent.RejectedExecutionException;

/** One channel of a {@link NettyThriftServer} as its connection registry sees it. */
final class NettyConnectionHandle implements ConnectionHandle {

  private final Channel channel;

  NettyConnectionHandle(Channel channel) {
    this.channel = channel;
  }

  @Override
  public void startDrain() {
    ChannelHandlerContext ctx = channel.pipeline().context(ThriftServerHandler.class);
    if (ctx == null) {
      channel.close(); // accepted during the close, before it had a call path: nothing to answer
      return;
    }
    ThriftServerHandler handler = (ThriftServerHandler) ctx.handler();
    try {
      channel.eventLoop().execute(() -> handler.startDrain(ctx));
    } catch (RejectedExecutionException loopGone) {
      channel.close(); // the caller's group was shut down under us; nothing left to drain
    }
  }

  @Override
  public int pendingCalls() {
    ChannelHandlerContext ctx = channel.pipeline().context(ThriftServerHandler.class);
    return ctx == null ? 0 : ((ThriftServerHandler) ctx.handler()).pendingCalls();
  }

  @Override
  public void closeNow() {
    channel.close();
  }
}
