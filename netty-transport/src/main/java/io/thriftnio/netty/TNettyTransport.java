package io.thriftnio.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.internal.client.ClientErrors;
import io.thriftnio.core.internal.client.QueuedFramedTransport;
import io.thriftnio.core.wire.ClientCodec;
import io.thriftnio.core.wire.ReplyEvent;
import java.net.InetSocketAddress;
import org.apache.thrift.transport.TTransportException;

/**
 * The sync transport of {@link NettyClientIo} over TLS, where Netty's {@code SslHandler} (JDK or
 * OpenSSL engine) must run on the event loop: frames are handed to the reading thread through
 * core's {@link QueuedFramedTransport}. Plain TCP needs no event loop and uses core's blocking
 * socket transport instead.
 */
final class TNettyTransport extends QueuedFramedTransport {

  private final Runnable onClose;
  private final ClientCodec codec;
  private volatile Channel channel;

  TNettyTransport(InetSocketAddress address, ClientOptions options, Runnable onClose)
      throws TTransportException {
    super(address, options);
    this.codec = ClientCodec.of(options, address, ClientErrors.peer(address));
    this.onClose = onClose;
  }

  /** The pipeline's decoder and last handler: hand replies to the reading thread. */
  void addTo(ChannelPipeline pipeline, int maxFrameSize) {
    pipeline
        .addLast("thriftFrameDecoder", ThriftFrameDecoder.client(codec, maxFrameSize))
        .addLast("thriftClientHandler", new Receiver());
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
   * Copies the frame (its prefix included; unframed, there is none) and sends it without waiting.
   */
  @Override
  protected void sendFrame(byte[] frame, int length) {
    Channel ch = channel;
    ByteBuf payload = ch.alloc().buffer(length).writeBytes(frame, 0, length);
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
      if (msg instanceof ReplyEvent) {
        // A sync transport's wire is framed or unframed: only a reply it cannot read has one.
        ReplyEvent event = (ReplyEvent) msg;
        exceptionCaught(
            ctx,
            event.connectionFailure() != null
                ? event.connectionFailure()
                : new TTransportException(TTransportException.CORRUPTED_DATA, event.closeReason()));
        return;
      }
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
