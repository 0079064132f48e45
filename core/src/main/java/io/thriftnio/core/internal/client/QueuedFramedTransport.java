package io.thriftnio.core.internal.client;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import java.net.InetSocketAddress;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.thrift.transport.TTransportException;

/**
 * A sync transport whose response frames are handed over by an IO library's thread ({@link
 * #frameArrived}, {@link #connectionEnded}), for connections that need that thread: TLS through the
 * transport's own engine, or a connection the caller assembled. The reading thread waits on a
 * queue.
 *
 * <p>The peer may only answer: a frame that arrives when every flushed request has had its response
 * (an unsolicited frame), or while an earlier response is still unread (a server that keeps
 * sending), closes the connection, drops the frames held, and the waiting or next read fails with
 * {@code CORRUPTED_DATA}: at most one response frame, of at most {@code maxFrameSize} bytes, is
 * ever held. Not part of the API.
 */
public abstract class QueuedFramedTransport extends FramedClientTransport {

  private static final Object CLOSED = new Object();

  private final long readTimeoutNanos;
  private final LinkedBlockingQueue<Object> inbound = new LinkedBlockingQueue<>();

  /** Responses owed: requests flushed and not yet answered (oneway ones never are). */
  private final AtomicInteger owed = new AtomicInteger();

  /** Response frames received and not yet taken by a read. */
  private final AtomicInteger unread = new AtomicInteger();

  private volatile boolean violated;
  private volatile boolean closed;
  private volatile boolean ended;
  private volatile Throwable failure;

  /**
   * @param address the server
   * @param maxFrameSize the largest frame, in bytes
   * @param readTimeoutMillis how long a read waits for its frame
   */
  protected QueuedFramedTransport(
      InetSocketAddress address, int maxFrameSize, long readTimeoutMillis)
      throws TTransportException {
    this(address, maxFrameSize, readTimeoutMillis, true);
  }

  /**
   * A transport with the options' limit, read timeout and transport (framed or unframed).
   *
   * @param address the server
   * @param options the connection's settings
   */
  protected QueuedFramedTransport(InetSocketAddress address, ClientOptions options)
      throws TTransportException {
    this(
        address,
        options.maxFrameSize(),
        options.callTimeout().toMillis(),
        options.wireKind() != WireKind.UNFRAMED);
    shape(options);
  }

  /**
   * @param framed whether requests go out behind their length; if not, the IO adapter cuts whole
   *     unframed replies and hands each to {@link #frameArrived}
   */
  protected QueuedFramedTransport(
      InetSocketAddress address, int maxFrameSize, long readTimeoutMillis, boolean framed)
      throws TTransportException {
    super(address, maxFrameSize, framed);
    this.readTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(readTimeoutMillis);
  }

  /** Closes the connection without waiting. */
  protected abstract void closeConnection();

  /** Whether the connection is open, as the IO library sees it. */
  protected abstract boolean connectionOpen();

  /** Runs once, after the transport has closed (for a registry of open connections). */
  protected void closed() {}

  @Override
  public boolean isOpen() {
    return !closed && !violated && !ended && connectionOpen();
  }

  /** Closes the connection; a blocked or later read fails. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    dropFrame();
    closeConnection();
    inbound.offer(CLOSED);
    closed();
    notifyClosed();
  }

  /** Counts a flushed request: call it before the write can be answered. */
  protected final void requestSent() {
    owed.updateAndGet(n -> n == Integer.MAX_VALUE ? n : n + 1);
  }

  /** A write failed: the next read or flush reports it. */
  protected final void writeFailed(Throwable cause) {
    if (failure == null) {
      failure = cause;
    }
    closeConnection();
  }

  @Override
  protected void checkOpen(String operation) throws TTransportException {
    if (closed) {
      // A response queued before close() (a late reply to a timed-out call, say) is never read.
      throw ClientErrors.transportClosed(address, operation);
    }
    Throwable failed = failure;
    if (failed != null && !violated) {
      close();
      throw ClientErrors.connectionFailed(address, failed);
    }
  }

  /** One response frame, on the IO thread; the transport keeps the array. */
  public final void frameArrived(byte[] frame) {
    if (closed || violated) {
      return; // closing: frames after a violation answer nobody
    }
    String violation = null;
    if (owed.getAndUpdate(n -> n > 0 ? n - 1 : 0) == 0) {
      violation = "with no call waiting for it";
    } else if (unread.get() > 0) {
      violation = "while the previous response was still unread";
    }
    if (violation == null) {
      unread.incrementAndGet();
      inbound.offer(frame);
      return;
    }
    violated = true;
    // Frames already queued may be the peer's noise too: no read may take any of them.
    inbound.clear();
    unread.set(0);
    inbound.offer(ClientErrors.protocolViolation(address, frame.length, violation));
    closeConnection();
  }

  /** The connection ended, with {@code cause} or ({@code null}) in order; on any thread. */
  public final void connectionEnded(Throwable cause) {
    if (cause != null && failure == null) {
      failure = cause;
    }
    ended = true;
    inbound.offer(CLOSED);
    notifyClosed(); // the peer closed or reset it: a pool drops it now, idle or not
  }

  @Override
  protected void receiveFrame() throws TTransportException {
    Object event;
    try {
      event = inbound.poll(readTimeoutNanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      close(); // a response may still arrive and would be taken for the next call's
      Thread.currentThread().interrupt();
      throw ClientErrors.interrupted(address, e);
    }
    if (event == null) {
      close();
      throw ClientErrors.readTimedOut(
          address, TimeUnit.NANOSECONDS.toMillis(readTimeoutNanos), lastMethod(), null);
    }
    if (event instanceof byte[]) {
      unread.decrementAndGet();
      byte[] frame = (byte[]) event;
      setFrame(frame, frame.length);
      return;
    }
    inbound.offer(event); // every later read fails too
    if (closed) {
      throw ClientErrors.transportClosed(address, "read");
    }
    if (event instanceof TTransportException) {
      TTransportException violation = (TTransportException) event;
      throw new TTransportException(violation.getType(), violation.getMessage());
    }
    Throwable failed = failure;
    close();
    throw failed != null
        ? ClientErrors.connectionFailed(address, lastMethod(), failed, "")
        : closedByPeer();
  }
}
