package io.thriftnio.grizzly;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.Framing;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.WireTransport;
import io.thriftnio.core.internal.client.PipelinedChannel;
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
 * GrizzlyClientResources#openChannel}. The call table (ordering, timers, limits, failures) is
 * core's, the same as on every transport; this class moves its bytes:
 *
 * <pre>
 *  exchange(a) exchange(b) send(c) exchange(d)      any threads, no waiting
 *     | a | b | c | d |  -------&gt;  server           written by one drainer at a time, no lock held
 *     | A | B | D |      &lt;-------  responses in request order (c is oneway: none)
 * </pre>
 *
 * <p>The calling thread that finds the outbound queue idle writes it into Grizzly's async write
 * queue; no monitor is held meanwhile, so a busy connection never stalls the selector thread that
 * reads another. Writing stops while more than {@value GrizzlyConnector#WRITE_HIGH_WATER_MARK}
 * bytes wait for the socket, and resumes as they drain. Thread-safe; {@link #close()} is
 * idempotent.
 */
public final class GrizzlyThriftChannel extends PipelinedChannel
    implements ThriftClientFilter.FrameSink {

  private final Connection<?> connection;
  private final AtomicLong unwrittenBytes = new AtomicLong();

  /** Requests leave without the length prefix ({@code WireTransport.UNFRAMED}). */
  private final boolean unframed;

  GrizzlyThriftChannel(
      InetSocketAddress address,
      Connection<?> connection,
      ClientOptions options,
      ScheduledExecutorService timer,
      Runnable onClose) {
    super(address, options, timer, onClose);
    this.connection = connection;
    this.unframed = options.transport() == WireTransport.UNFRAMED;
    ThriftClientFilter.register(connection, this);
    CloseListeners.onClose(connection, () -> onClosed(null));
  }

  @Override
  public void onFrame(ByteBuffer payload) {
    calls.onResponse(payload);
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
  public void write(ByteBuffer payload, Consumer<Throwable> done) {
    int length = payload.remaining();
    MemoryManager<?> mm = connection.getMemoryManager();
    Buffer frame;
    long size;
    if (unframed) {
      frame = Buffers.wrap(mm, payload);
      size = length;
    } else {
      byte[] header = new byte[Framing.HEADER_SIZE];
      Framing.encodeLength(length, header, 0);
      // Zero-copy: the prefix and the caller's buffer go out as one composite write.
      frame = Buffers.appendBuffers(mm, Buffers.wrap(mm, header), Buffers.wrap(mm, payload));
      size = Framing.HEADER_SIZE + (long) length;
    }
    unwrittenBytes.addAndGet(size);
    GrizzlyWrites.write(
        connection,
        frame,
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
