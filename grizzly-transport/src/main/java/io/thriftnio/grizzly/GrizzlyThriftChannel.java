package io.thriftnio.grizzly;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.internal.client.CodecChannel;
import io.thriftnio.core.wire.ReplyEvent;
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
 * A pipelined asynchronous {@link ThriftChannel} over one Grizzly connection, opened by {@link
 * GrizzlyClientIo#openChannel}, for every wire transport (framed, unframed, HTTP). The call table
 * (ordering, timers, limits, failures) and the wire are core's, the same as on every transport;
 * this class moves their bytes:
 *
 * <pre>
 *  exchange(a) exchange(b) send(c) exchange(d)      any threads, no waiting
 *     | a | b | c | d |  -------&gt;  server           written by one drainer at a time, no lock held
 *     | A | B | D |      &lt;-------  responses in request order (c is oneway: none)
 * </pre>
 *
 * <p>The calling thread that finds the outbound queue idle writes it into Grizzly's async write
 * queue, each request behind its head (a length prefix, an HTTP head) in one composite buffer; no
 * monitor is held meanwhile, so a busy connection never stalls the selector thread that reads
 * another. Writing stops while more than {@value GrizzlyConnector#WRITE_HIGH_WATER_MARK} bytes wait
 * for the socket, and resumes as they drain. Replies come from the chain's {@link
 * ThriftFrameFilter}, which reads them with this channel's codec. Thread-safe; {@link #close()} is
 * idempotent.
 */
final class GrizzlyThriftChannel extends CodecChannel implements ThriftClientFilter.ReplySink {

  private final Connection<?> connection;
  private final AtomicLong unwrittenBytes = new AtomicLong();

  GrizzlyThriftChannel(
      InetSocketAddress address,
      Connection<?> connection,
      ClientOptions options,
      ScheduledExecutorService timer,
      Runnable onClose) {
    super(address, options, timer, onClose);
    this.connection = connection;
    ThriftFrameFilter.attach(connection, codec);
    ThriftClientFilter.register(connection, this);
    CloseListeners.onClose(connection, () -> onClosed(null));
  }

  @Override
  public void onFrame(ByteBuffer payload) {
    onReply(payload);
  }

  @Override
  public void onEvent(ReplyEvent event) {
    onReplyEvent(event);
  }

  @Override
  public void onClosed(Throwable cause) {
    connectionEnded(cause);
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
  protected void send(byte[] head, ByteBuffer payload, Consumer<Throwable> done) {
    MemoryManager<?> mm = connection.getMemoryManager();
    // Zero-copy: the head and the caller's buffer go out as one composite write.
    Buffer request =
        head.length == 0
            ? Buffers.wrap(mm, payload)
            : Buffers.appendBuffers(mm, Buffers.wrap(mm, head), Buffers.wrap(mm, payload));
    long size = head.length + (long) payload.remaining();
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
