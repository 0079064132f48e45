package io.thriftnio.grizzly;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.internal.client.HttpChannelCodec;
import io.thriftnio.core.internal.client.PipelinedChannel;
import io.thriftnio.core.internal.server.HttpResponseReader;
import io.thriftnio.grizzly.internal.CloseListeners;
import io.thriftnio.grizzly.internal.GrizzlyWrites;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;

/**
 * A pipelined {@link ThriftChannel} that posts each call over one keep-alive HTTP/1.1 Grizzly
 * connection, opened by {@link GrizzlyClientResources#openChannel} with {@code
 * ClientOptions.transport(HTTP)}. The call table is core's, the HTTP rules are core's {@link
 * HttpChannelCodec}; this class moves the bytes as {@link GrizzlyThriftChannel} does (the calling
 * thread drains into Grizzly's async write queue, bounded by a high water mark), the head and the
 * caller's message leaving as one composite buffer, and keeps the bytes read until their responses
 * are whole. Thread-safe; {@link #close()} is idempotent.
 */
final class GrizzlyHttpChannel extends PipelinedChannel implements HttpClientFilter.Sink {

  private final Connection<?> connection;
  private final HttpChannelCodec codec;
  private final AtomicLong unwrittenBytes = new AtomicLong();

  /** Bytes read and not yet part of a whole response; guarded by itself (the read side). */
  private final Object readLock = new Object();

  private Buffer pending;

  GrizzlyHttpChannel(
      InetSocketAddress address,
      Connection<?> connection,
      ClientOptions options,
      ScheduledExecutorService timer,
      Runnable onClose) {
    super(address, options, timer, onClose);
    this.connection = connection;
    this.codec = new HttpChannelCodec(address, options.httpPath(), options.maxFrameSize(), calls);
    HttpClientFilter.register(connection, this);
    CloseListeners.onClose(connection, () -> onClosed(null));
  }

  @Override
  public void onBytes(Buffer bytes) {
    synchronized (readLock) {
      Buffer b =
          pending == null
              ? bytes
              : Buffers.appendBuffers(connection.getMemoryManager(), pending, bytes);
      int consumed = codec.onBytes(source(b), b.position(), b.remaining());
      if (consumed < 0 || consumed == b.remaining()) {
        pending = null;
        return;
      }
      b.position(b.position() + consumed);
      if (consumed > 0) {
        b.shrink(); // drops what whole responses used; what is kept starts a response
      }
      pending = b;
    }
  }

  @Override
  public void onClosed(Throwable cause) {
    synchronized (readLock) {
      Buffer b = pending;
      pending = null;
      if (b != null) {
        codec.onEndOfStream(source(b), b.position(), b.remaining());
      } else {
        codec.onEndOfStream(source(Buffers.EMPTY_BUFFER), 0, 0);
      }
    }
    connectionEnded(cause);
  }

  private static HttpResponseReader.BulkSource source(Buffer b) {
    return new HttpResponseReader.BulkSource() {
      @Override
      public byte get(int index) {
        return b.get(index);
      }

      @Override
      public void copy(int index, byte[] dst, int offset, int length) {
        Buffer d = b.duplicate();
        d.position(index);
        d.get(dst, offset, length);
      }
    };
  }

  @Override
  protected boolean connectionOpen() {
    return connection.isOpen();
  }

  /** Drains on the calling thread: Grizzly's async write queue takes writes from any thread. */
  @Override
  public void execute(Runnable drain) {
    drain.run();
  }

  @Override
  public void write(ByteBuffer payload, Consumer<Throwable> done) {
    write(payload, false, done);
  }

  @Override
  public void write(ByteBuffer payload, boolean oneway, Consumer<Throwable> done) {
    int length = payload.remaining();
    byte[] head = codec.head(length, oneway);
    MemoryManager<?> mm = connection.getMemoryManager();
    Buffer request = Buffers.appendBuffers(mm, Buffers.wrap(mm, head), Buffers.wrap(mm, payload));
    long size = head.length + (long) length;
    unwrittenBytes.addAndGet(size);
    GrizzlyWrites.write(
        connection,
        request,
        failure -> {
          long left = unwrittenBytes.addAndGet(-size);
          done.accept(failure);
          if (left + size >= GrizzlyConnector.WRITE_HIGH_WATER_MARK
              && left < GrizzlyConnector.WRITE_HIGH_WATER_MARK) {
            calls.writable(); // crossed below the mark: resume the drain
          }
        });
  }

  @Override
  public void flush() {
    // Grizzly's async write queue sends as soon as the socket takes bytes: nothing to flush.
  }

  @Override
  public boolean writable() {
    return unwrittenBytes.get() < GrizzlyConnector.WRITE_HIGH_WATER_MARK;
  }

  @Override
  public void closeConnection() {
    connection.closeSilently();
  }
}
