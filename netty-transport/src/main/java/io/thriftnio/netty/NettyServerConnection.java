package io.thriftnio.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.ssl.SslHandler;
import io.thriftnio.core.internal.server.RegisteredConnection;
import io.thriftnio.core.internal.server.ServerConnection;
import io.thriftnio.core.sasl.SaslIdentity;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSession;

/**
 * A {@link ThriftServerHandler}'s channel as core's call path sees it. Its IO methods run on the
 * event loop.
 */
final class NettyServerConnection implements ServerConnection {
  private final ThriftServerHandler handler;

  NettyServerConnection(ThriftServerHandler handler) {
    this.handler = handler;
  }

  @Override
  public void write(ByteBuffer head, ByteBuffer body) {
    ByteBuf reply;
    if (head == null) {
      reply = Unpooled.wrappedBuffer(body);
    } else if (body == null) {
      reply = Unpooled.wrappedBuffer(head);
    } else {
      reply = Unpooled.wrappedBuffer(head, body); // one write, no copy of the reply
    }
    // Whole as it leaves: the encoder passes it on as one buffer, adding no prefix.
    Object framed = new ThriftFrameEncoder.Framed(reply);
    handler.lastWrite = handler.ctx.write(framed).addListener(handler.countDropped);
  }

  @Override
  public void flush() {
    handler.ctx.flush();
  }

  @Override
  public boolean inIoThread() {
    return handler.ctx.executor().inEventLoop();
  }

  @Override
  public void execute(Runnable task) {
    try {
      handler.ctx.executor().execute(task);
    } catch (RejectedExecutionException loopShutDown) {
      task.run(); // the loop is gone with its channels: the writes fail and count as dropped
    }
  }

  @Override
  public void resumeReading() {
    handler.updateAutoRead();
  }

  @Override
  public void release(Object request) {
    ((ByteBuf) request).release();
  }

  @Override
  public void close(boolean halfCloseFirst) {
    if (handler.registration != null) {
      handler.registration.noteClosedAfterReplies(); // a bad request, or the end of a drain
    }
    handler.ctx.flush();
    if (!halfCloseFirst
        || handler.lastWrite == null
        || !(handler.ctx.channel() instanceof DuplexChannel)) {
      closeAfterLastWrite();
      return;
    }
    // Half-close, keep reading (and discarding) for a moment, then close: closing with unread
    // input would send a reset, which can destroy the error reply before the peer reads it.
    handler.lastWrite.addListener(
        (ChannelFutureListener)
            f -> {
              if (!f.isSuccess()) {
                handler.ctx.close();
                return;
              }
              ((DuplexChannel) handler.ctx.channel()).shutdownOutput();
              handler
                  .ctx
                  .executor()
                  .schedule(
                      () -> handler.ctx.close(),
                      ThriftServerHandler.LINGER_MILLIS,
                      TimeUnit.MILLISECONDS);
            });
  }

  private void closeAfterLastWrite() {
    if (handler.lastWrite == null || handler.lastWrite.isDone()) {
      handler.ctx.close();
    } else {
      handler.lastWrite.addListener(ChannelFutureListener.CLOSE);
    }
  }

  @Override
  public boolean hasBufferedRequests() {
    return false; // the decoder delivers every whole frame of a read at once
  }

  @Override
  public void allAnswered() {
    handler.timeouts.allCallsAnswered();
  }

  @Override
  public SocketAddress remoteAddress() {
    return handler.ctx.channel().remoteAddress();
  }

  @Override
  public SocketAddress localAddress() {
    return handler.ctx.channel().localAddress();
  }

  @Override
  public SSLSession tlsSession() {
    // Whoever built the pipeline (the server, or a user's own) put the SslHandler before us.
    SslHandler tls = handler.ctx.pipeline().get(SslHandler.class);
    return tls == null ? null : tls.engine().getSession();
  }

  @Override
  public SaslIdentity saslIdentity() {
    return handler.connectionEnvelope().saslIdentity();
  }

  @Override
  public RegisteredConnection<?> registration() {
    return handler.registration;
  }
}
