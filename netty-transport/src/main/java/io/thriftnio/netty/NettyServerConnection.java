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
 *
 * <p>Replies of at most {@value #COALESCED_REPLY_MAX} bytes are copied into one buffer until the
 * next flush, and leave as one message: pipelined calls answered in one read batch cost one write
 * through the pipeline, one outbound entry and one promise, instead of one of each per reply (a
 * third of the event loop's time under 8 x 32 pipelined calls went to that per-reply path and the
 * system call). A larger reply first writes the batch, then itself, uncopied: order is kept.
 */
final class NettyServerConnection implements ServerConnection {
  /** The largest reply copied into the batch, in bytes (its frame prefix included). */
  static final int COALESCED_REPLY_MAX = 2048;

  private static final int BATCH_INITIAL_CAPACITY = 4096;

  private final ThriftServerHandler handler;

  /**
   * Whether the batch is a heap buffer: behind an {@code SslHandler}, whose JDK engine encrypts
   * from arrays (OpenSSL's copies a heap batch once into its own direct buffer).
   */
  private final boolean heapBatch;

  /** Small replies not yet written, or null; on the event loop only. */
  private ByteBuf batch;

  private int batched; // replies in batch; on the event loop only

  NettyServerConnection(ThriftServerHandler handler) {
    this.handler = handler;
    this.heapBatch = handler.ctx.pipeline().get(SslHandler.class) != null;
  }

  @Override
  public void write(ByteBuffer head, ByteBuffer body) {
    int size = (head == null ? 0 : head.remaining()) + (body == null ? 0 : body.remaining());
    if (size <= COALESCED_REPLY_MAX) {
      if (batch == null) {
        int capacity = Math.max(size, BATCH_INITIAL_CAPACITY);
        batch =
            heapBatch
                ? handler.ctx.alloc().heapBuffer(capacity)
                : handler.ctx.alloc().buffer(capacity);
      }
      copy(head, batch);
      copy(body, batch);
      batched++;
      return;
    }
    writeBatch();
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

  private static void copy(ByteBuffer from, ByteBuf to) {
    if (from == null) {
      return;
    }
    if (from.hasArray()) {
      to.writeBytes(from.array(), from.arrayOffset() + from.position(), from.remaining());
    } else {
      to.writeBytes(from.duplicate()); // the caller's buffer keeps its position
    }
  }

  /** Writes the batched replies as one message; a failed write counts each of them dropped. */
  private void writeBatch() {
    ByteBuf replies = batch;
    if (replies == null) {
      return;
    }
    int n = batched;
    batch = null;
    batched = 0;
    handler.lastWrite =
        handler
            .ctx
            .write(new ThriftFrameEncoder.Framed(replies))
            .addListener(
                n == 1
                    ? handler.countDropped
                    : (ChannelFutureListener)
                        f -> {
                          if (!f.isSuccess()) {
                            handler.dropped(n);
                          }
                        });
  }

  /** The channel closed: batched replies are dropped, their memory given back. */
  void discardBatch() {
    if (batch != null) {
      batch.release();
      batch = null;
      handler.dropped(batched);
      batched = 0;
    }
  }

  @Override
  public void flush() {
    writeBatch();
    handler.ctx.flush();
  }

  @Override
  public boolean inIoThread() {
    return handler.ctx.executor().inEventLoop();
  }

  @Override
  public boolean runsTasksAfterEachPass() {
    return true; // an event loop runs its task queue after the IO of each pass
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
    flush();
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
