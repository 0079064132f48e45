package io.thriftnio.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.internal.ThreadExecutorMap;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.internal.client.HttpChannelCodec;
import io.thriftnio.core.internal.client.PipelinedChannel;
import io.thriftnio.core.internal.server.HttpResponseReader;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;

/**
 * A pipelined {@link ThriftChannel} that posts each call over one keep-alive HTTP/1.1 Netty
 * connection, opened by {@link NettyClientResources#openChannel} with {@code
 * ClientOptions.transport(HTTP)}. The call table is core's, the HTTP rules are core's {@link
 * HttpChannelCodec}; this class moves the bytes: writes run on the channel's event loop, the head
 * and the caller's message leaving as one composite buffer, and the pipeline's last handler hands
 * the bytes read to the codec. Thread-safe; {@link #close()} is idempotent.
 */
final class NettyHttpChannel extends PipelinedChannel {

  private static final long CLOSE_WAIT_MILLIS = 3000;

  private final Handler handler = new Handler();
  private final HttpChannelCodec codec;
  private volatile Channel channel;
  private ChannelHandlerContext ctx; // set before connect() returns; used on the event loop

  NettyHttpChannel(
      InetSocketAddress address,
      ClientOptions options,
      ScheduledExecutorService timer,
      Runnable onClose) {
    super(address, options, timer, onClose);
    this.codec = new HttpChannelCodec(address, options.httpPath(), options.maxFrameSize(), calls);
  }

  /** The pipeline's last handler: reads HTTP responses into the call table. */
  ChannelHandler handler() {
    return handler;
  }

  /** As {@link NettyThriftChannel#close()}: off the event loops, waits a few seconds at most. */
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
    write(payload, false, done);
  }

  @Override
  public void write(ByteBuffer payload, boolean oneway, Consumer<Throwable> done) {
    byte[] head = codec.head(payload.remaining(), oneway);
    ByteBuf request = ctx.alloc().ioBuffer(head.length + payload.remaining());
    request.writeBytes(head).writeBytes(payload.duplicate());
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

  private static HttpResponseReader.BulkSource source(ByteBuf in) {
    return new HttpResponseReader.BulkSource() {
      @Override
      public byte get(int index) {
        return in.getByte(index);
      }

      @Override
      public void copy(int index, byte[] dst, int offset, int length) {
        in.getBytes(index, dst, offset, length);
      }
    };
  }

  /** The connection end: accumulates bytes until responses are whole (bounded by the codec). */
  private final class Handler extends ByteToMessageDecoder {
    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      NettyHttpChannel.this.ctx = ctx;
      channel = ctx.channel();
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
      int consumed = codec.onBytes(source(in), in.readerIndex(), in.readableBytes());
      in.skipBytes(consumed < 0 ? in.readableBytes() : consumed);
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
      if (in.isReadable()) {
        decode(ctx, in, out);
      }
      codec.onEndOfStream(source(in), in.readerIndex(), in.readableBytes());
      in.skipBytes(in.readableBytes());
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
      if (ctx.channel().isWritable()) {
        calls.writable();
      }
      super.channelWritabilityChanged(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      connectionEnded(cause);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
      super.channelInactive(ctx); // decodeLast first: a body up to the end is delivered
      connectionEnded(null);
    }
  }
}
