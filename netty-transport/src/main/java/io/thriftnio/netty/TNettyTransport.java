package io.thriftnio.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.Framing;
import io.thriftnio.core.WireTransport;
import io.thriftnio.core.internal.client.ClientErrors;
import io.thriftnio.core.internal.client.QueuedFramedTransport;
import io.thriftnio.core.internal.client.UnframedReplies;
import java.net.InetSocketAddress;
import org.apache.thrift.transport.TTransportException;

/**
 * The sync transport of {@link NettyClientResources} over TLS, where Netty's {@code SslHandler}
 * (JDK or OpenSSL engine) must run on the event loop: frames are handed to the reading thread
 * through core's {@link QueuedFramedTransport}. Plain TCP needs no event loop and uses core's
 * blocking socket transport instead.
 */
final class TNettyTransport extends QueuedFramedTransport {

  private final Runnable onClose;
  private volatile Channel channel;

  /** The prefix the frame array starts with, which the encoder writes itself; 0 unframed. */
  private final int prefix;

  TNettyTransport(InetSocketAddress address, ClientOptions options, Runnable onClose)
      throws TTransportException {
    super(
        address,
        options.maxFrameSize(),
        options.readTimeout().toMillis(),
        options.transport() != WireTransport.UNFRAMED);
    this.prefix = options.transport() == WireTransport.UNFRAMED ? 0 : Framing.HEADER_SIZE;
    this.onClose = onClose;
  }

  /** The pipeline's last handler: hands response frames to the reading thread. */
  ChannelInboundHandlerAdapter receiver() {
    return new Receiver();
  }

  void connected(Channel channel) {
    this.channel = channel;
  }

  @Override
  protected boolean connectionOpen() {
    Channel ch = channel;
    return ch != null && ch.isActive();
  }

  @Override
  protected void closeConnection() {
    Channel ch = channel;
    if (ch != null) {
      ch.close();
    }
  }

  @Override
  protected void closed() {
    onClose.run();
  }

  /**
   * Copies the frame's payload (the encoder adds the prefix; unframed, there is none) and sends it
   * without waiting.
   */
  @Override
  protected void sendFrame(byte[] frame, int length) {
    Channel ch = channel;
    ByteBuf payload = ch.alloc().buffer(length - prefix).writeBytes(frame, prefix, length - prefix);
    requestSent();
    ch.writeAndFlush(payload)
        .addListener(
            (ChannelFutureListener)
                f -> {
                  if (!f.isSuccess()) {
                    writeFailed(f.cause());
                  }
                });
  }

  private final class Receiver extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf buf = (ByteBuf) msg;
      try {
        frameArrived(ByteBufUtil.getBytes(buf));
      } finally {
        buf.release();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      connectionEnded(
          cause instanceof InvalidFrameException
              ? ClientErrors.frameSize(((InvalidFrameException) cause).getCause(), address)
              : cause instanceof InvalidMessageException
                  ? UnframedReplies.invalid(cause.getMessage())
                  : cause);
      ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      connectionEnded(null);
    }
  }

  @Override
  public String toString() {
    return "TNettyTransport{" + ClientErrors.peer(address) + (isOpen() ? ", open}" : ", closed}");
  }
}
