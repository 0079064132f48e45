package io.thriftnio.grizzly;

import io.thriftnio.core.FrameSizeException;
import io.thriftnio.core.Framing;
import io.thriftnio.grizzly.internal.CloseListeners;
import io.thriftnio.grizzly.internal.GrizzlyWrites;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.transport.TEndpointTransport;
import org.apache.thrift.transport.TTransportException;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.memory.Buffers;

/**
 * A blocking, framed Thrift client transport over one Grizzly connection: any generated {@code
 * Client} works on it unchanged, like on {@code TFramedTransport(TSocket)}.
 *
 * <pre>
 *  write(...) write(...)      buffered until flush()
 *  flush()                    sends one frame:  | length | payload |
 *  read(...)                  blocks until the response frame has arrived (readTimeout)
 * </pre>
 *
 * <p>Created by {@link GrizzlyClientResources#newTransport}; {@link #open()} connects within the
 * connect timeout. The {@link TConfiguration} is real: its {@code maxFrameSize} bounds requests
 * and responses, and each response frame resets the message-size budget to the frame's length,
 * so libthrift's size checks compare declared sizes with the bytes actually present.
 *
 * <p>Failures close the transport for good, because its stream may hold half a message:
 *
 * <ul>
 *   <li>no response within the read timeout: {@code TTransportException(TIMED_OUT)};
 *   <li>{@code flush()} on an interrupted thread, or interrupted while waiting for the write:
 *       throws (the interrupt flag stays set) and never reports success;
 *   <li>the peer closes: {@code TTransportException(END_OF_FILE)} naming the peer;
 *   <li>a response frame above {@code maxFrameSize}: {@code TTransportException(CORRUPTED_DATA)}
 *       with the length and the limit, before anything of it is buffered;
 *   <li>the peer sends a frame it was not asked for: with every flushed request answered (an
 *       unsolicited frame), or while the previous response is still unread (a server that keeps
 *       sending): {@code TTransportException(CORRUPTED_DATA)}, and the frames held are dropped. At
 *       most one response frame, of at most {@code maxFrameSize} bytes, is ever held. (A oneway
 *       request is flushed like any other, so after one the transport accepts one frame it did
 *       not ask for; the generated client then rejects its sequence id.)
 * </ul>
 *
 * <p>Once closed, by the caller or by a failure, every read fails with {@code NOT_OPEN}: a response
 * that arrived before or after the close is never returned.
 *
 * <p>Not thread-safe, like every Thrift transport: one call at a time.
 */
public final class TGrizzlyClientTransport extends TEndpointTransport
    implements ThriftClientFilter.FrameSink {

  private static final Object CLOSED = new Object();
  private static final int INITIAL_CAPACITY = 256;

  private final GrizzlyClientResources resources;
  private final InetSocketAddress address;
  private final Duration connectTimeout;
  private final Duration readTimeout;
  private final LinkedBlockingQueue<Object> frames = new LinkedBlockingQueue<>();
  /** Responses owed: requests flushed and not yet answered (oneway ones never are). */
  private final AtomicInteger owed = new AtomicInteger();
  /** Response frames received and not yet taken by a read. */
  private final AtomicInteger unread = new AtomicInteger();
  private volatile boolean violated;
  /**
   * Set before the connection's end is queued for readers: a reader that has just failed on it must
   * see the transport closed, though Grizzly may not have finished closing the connection yet.
   */
  private volatile boolean peerClosed;

  private volatile Connection<?> connection;
  private volatile Throwable closeCause;
  private volatile boolean closed;
  private byte[] out = new byte[Framing.HEADER_SIZE + INITIAL_CAPACITY];
  private int outSize = Framing.HEADER_SIZE;
  private ByteBuffer in;

  TGrizzlyClientTransport(
      GrizzlyClientResources resources,
      InetSocketAddress address,
      Duration connectTimeout,
      Duration readTimeout,
      TConfiguration configuration)
      throws TTransportException {
    super(configuration);
    this.resources = resources;
    this.address = address;
    this.connectTimeout = connectTimeout;
    this.readTimeout = readTimeout;
  }

  @Override
  public boolean isOpen() {
    Connection<?> c = connection;
    return c != null && !closed && !violated && !peerClosed && c.isOpen();
  }

  /**
   * Connects to the server within the connect timeout.
   *
   * @throws TTransportException {@code ALREADY_OPEN} if open, {@code NOT_OPEN} if the transport
   *     was closed (transports are not reusable) or the connection is refused, {@code TIMED_OUT}
   *     if the connect timeout passes
   */
  @Override
  public void open() throws TTransportException {
    if (connection != null) {
      if (closed) {
        throw new TTransportException(
            TTransportException.NOT_OPEN,
            "transport to " + address + " was closed; create a new one");
      }
      throw new TTransportException(
          TTransportException.ALREADY_OPEN, "transport to " + address + " is already open");
    }
    Connection<?> c = resources.connect(address, connectTimeout);
    connection = c; // before frames can arrive: a violation closes it
    ThriftClientFilter.register(c, this);
    CloseListeners.onClose(c, () -> onClosed(null));
  }

  /** Closes the connection. Idempotent. */
  @Override
  public void close() {
    closed = true;
    Connection<?> c = connection;
    if (c != null) {
      c.closeSilently();
    }
    frames.offer(CLOSED);
  }

  @Override
  public int read(byte[] buf, int off, int len) throws TTransportException {
    if (len <= 0) {
      return 0;
    }
    ensureNotClosed();
    if (in == null || !in.hasRemaining()) {
      nextFrame();
    }
    int n = Math.min(len, in.remaining());
    countConsumedMessageBytes(n);
    in.get(buf, off, n);
    return n;
  }

  private void nextFrame() throws TTransportException {
    ensureOpen();
    Object next;
    try {
      next =
          readTimeout.isZero()
              ? frames.take()
              : frames.poll(readTimeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      close();
      Thread.currentThread().interrupt();
      throw new TTransportException(
          TTransportException.UNKNOWN,
          "interrupted while waiting for a response from " + address + "; transport closed",
          e);
    }
    if (next == null) {
      close();
      throw new TTransportException(
          TTransportException.TIMED_OUT,
          "no response from "
              + address
              + " within readTimeout "
              + readTimeout.toMillis()
              + " ms; transport closed");
    }
    if (next == CLOSED) {
      frames.offer(CLOSED); // every later read fails too
      throw closedException();
    }
    if (next instanceof TTransportException) {
      frames.offer(next); // every later read fails too
      TTransportException violation = (TTransportException) next;
      throw new TTransportException(violation.getType(), violation.getMessage());
    }
    unread.decrementAndGet();
    in = (ByteBuffer) next;
    resetConsumedMessageSize(-1);
    updateKnownMessageSize(in.remaining());
  }

  private TTransportException closedException() {
    Throwable cause = closeCause;
    String message =
        (closed ? "transport to " + address + " closed" : "connection closed by " + address)
            + (cause != null ? ": " + cause : "");
    return new TTransportException(
        cause instanceof FrameSizeException
            ? TTransportException.CORRUPTED_DATA
            : TTransportException.END_OF_FILE,
        message,
        cause);
  }

  private void ensureNotClosed() throws TTransportException {
    if (closed) {
      // A response queued before close() (a late reply to a timed-out call, say) must never be
      // read as the answer to the next call.
      throw new TTransportException(
          TTransportException.NOT_OPEN, "transport to " + address + " is closed");
    }
  }

  private void ensureOpen() throws TTransportException {
    if (connection == null) {
      throw new TTransportException(
          TTransportException.NOT_OPEN, "transport to " + address + " is not open");
    }
  }

  @Override
  public void write(byte[] buf, int off, int len) throws TTransportException {
    int newSize = outSize + len;
    int payload = newSize - Framing.HEADER_SIZE;
    if (payload > getConfiguration().getMaxFrameSize() || newSize < 0) {
      outSize = Framing.HEADER_SIZE;
      throw new FrameSizeException(payload, getConfiguration().getMaxFrameSize(), address);
    }
    if (newSize > out.length) {
      out = Arrays.copyOf(out, Math.max(out.length * 2, newSize));
    }
    System.arraycopy(buf, off, out, outSize, len);
    outSize = newSize;
  }

  /**
   * Sends the bytes written since the last flush as one frame, and waits until Grizzly has
   * written it to the socket.
   *
   * @throws TTransportException if the transport is closed, the thread is interrupted (the
   *     transport is then closed: the frame may be half-sent), or the write fails
   */
  @Override
  public void flush() throws TTransportException {
    ensureOpen();
    int size = outSize;
    outSize = Framing.HEADER_SIZE;
    if (Thread.currentThread().isInterrupted()) {
      close();
      throw new TTransportException(
          TTransportException.UNKNOWN,
          "flush() to " + address + " called on an interrupted thread; nothing sent, transport"
              + " closed");
    }
    if (closed || !connection.isOpen()) {
      throw closedException();
    }
    Framing.encodeLength(size - Framing.HEADER_SIZE, out, 0);
    byte[] frame = Arrays.copyOf(out, size);
    owed.updateAndGet(n -> n == Integer.MAX_VALUE ? n : n + 1); // before the response can arrive
    CompletableFuture<Void> written = new CompletableFuture<>();
    GrizzlyWrites.write(
        connection,
        Buffers.wrap(connection.getMemoryManager(), frame),
        failure -> {
          if (failure == null) {
            written.complete(null);
          } else {
            written.completeExceptionally(failure);
          }
        });
    try {
      if (readTimeout.isZero()) {
        written.get();
      } else {
        written.get(readTimeout.toNanos(), TimeUnit.NANOSECONDS);
      }
    } catch (InterruptedException e) {
      close();
      Thread.currentThread().interrupt();
      throw new TTransportException(
          TTransportException.UNKNOWN,
          "interrupted while sending a frame to " + address + "; transport closed",
          e);
    } catch (TimeoutException e) {
      close();
      throw new TTransportException(
          TTransportException.TIMED_OUT,
          "frame of " + size + " bytes to " + address + " not written within "
              + readTimeout.toMillis() + " ms; transport closed");
    } catch (ExecutionException e) {
      close();
      throw new TTransportException(
          TTransportException.NOT_OPEN,
          "sending a frame to " + address + " failed: " + e.getCause(),
          e.getCause());
    }
  }

  @Override
  public void onFrame(ByteBuffer payload) {
    if (closed || violated) {
      return;
    }
    String violation = null;
    if (owed.getAndUpdate(n -> n > 0 ? n - 1 : 0) == 0) {
      violation = "with no call waiting for it";
    } else if (unread.get() > 0) {
      violation = "while the previous response was still unread";
    }
    if (violation == null) {
      unread.incrementAndGet();
      frames.offer(payload);
      return;
    }
    violated = true;
    // Frames already queued may be the peer's noise too: no read may take any of them.
    frames.clear();
    unread.set(0);
    frames.offer(
        new TTransportException(
            TTransportException.CORRUPTED_DATA,
            "protocol violation: a frame of "
                + payload.remaining()
                + " bytes arrived from "
                + address
                + " "
                + violation
                + "; connection closed"));
    connection.closeSilently();
  }

  @Override
  public void onClosed(Throwable cause) {
    if (cause != null && closeCause == null) {
      closeCause = cause;
    }
    peerClosed = true;
    frames.offer(CLOSED);
  }

  /** The server's address, as given when the transport was created. */
  public InetSocketAddress remoteAddress() {
    return address;
  }

  @Override
  public String toString() {
    return "TGrizzlyClientTransport{" + address + (isOpen() ? ", open" : ", closed") + '}';
  }
}
