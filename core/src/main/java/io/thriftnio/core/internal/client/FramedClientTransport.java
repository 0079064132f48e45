package io.thriftnio.core.internal.client;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.util.internal.CloseAware;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.Framing;
import io.thriftnio.core.util.internal.HeaderSlot;
import io.thriftnio.core.util.internal.MessageHeaders;
import io.thriftnio.core.wire.FirstBytes;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.transport.TEndpointTransport;
import org.apache.thrift.transport.TTransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The framed sync-transport logic every client transport of this library shares, like {@code
 * TFramedTransport}: any generated {@code Client} works on it unchanged.
 *
 * <pre>
 *  write() write()   [ 0 0 0 0 | payload ... ]   one array; the prefix is left free
 *  flush()           [ len     | payload ... ]   patched in place, handed to sendFrame once
 *  read()            receiveFrame() supplies the next response frame in an array of its own
 *                    (binary results are views of it); getBuffer() exposes it for libthrift's
 *                    fast path
 * </pre>
 *
 * <p>Unframed ({@code WireKind.UNFRAMED}), the same logic runs without the prefix: {@code flush()}
 * hands the bare message to {@code sendFrame}, and {@code receiveFrame} supplies one whole reply
 * message, its end found by walking it.
 *
 * <p>Each response frame bounds the {@link TConfiguration} message size, so libthrift's size checks
 * compare declared sizes with the bytes actually present. Subclasses move the bytes: {@link
 * SocketFramedTransport} over a blocking socket on the caller's thread, or an IO adapter whose
 * event loop hands frames over. Not thread-safe, like every {@code TTransport}.
 */
public abstract class FramedClientTransport extends TEndpointTransport
    implements CloseAware, HeaderTransport {
  private static final Logger log = LoggerFactory.getLogger(FramedClientTransport.class);

  private static final int INITIAL_CAPACITY = 256;

  /** The server, as the caller named it. */
  protected final InetSocketAddress address;

  /** The largest frame sent or accepted, length prefix excluded. */
  protected final int maxFrameSize;

  /** Bytes reserved for the length prefix: {@link Framing#HEADER_SIZE}, or 0 when unframed. */
  private final int prefix;

  // The buffers and the next request's settings are the calling thread's: one call at a time.
  private byte[] out;
  private int outSize;

  /** The end in {@link #out} of the message last flushed, whose bytes stay until the next write. */
  private int sentSize;

  private byte[] frame = new byte[0];
  private int framePos;
  private int frameEnd;

  private boolean repliesSeen; // the reading thread's
  private String shape; // set once, when made

  private Map<String, String> nextHeaders = Map.of();
  private long nextDeadline;
  private boolean hasNextDeadline;
  private volatile Map<String, String> replyHeaders = Map.of();

  /**
   * @param address the server
   * @param maxFrameSize the largest frame, in bytes
   */
  protected FramedClientTransport(InetSocketAddress address, int maxFrameSize)
      throws TTransportException {
    this(address, maxFrameSize, true);
  }

  /**
   * @param address the server
   * @param maxFrameSize the largest message, in bytes
   * @param framed whether each message goes out behind its 4-byte length; if not, {@link
   *     #sendFrame} gets the bare message
   */
  protected FramedClientTransport(InetSocketAddress address, int maxFrameSize, boolean framed)
      throws TTransportException {
    super(new TConfiguration(maxFrameSize, maxFrameSize, TConfiguration.DEFAULT_RECURSION_DEPTH));
    this.address = address;
    this.maxFrameSize = maxFrameSize;
    this.prefix = framed ? Framing.HEADER_SIZE : 0;
    this.out = new byte[prefix + INITIAL_CAPACITY];
    this.outSize = prefix;
  }

  private final Object closeLock = new Object();

  /** Null once closed. */
  @GuardedBy("closeLock")
  private List<Runnable> closeActions = new ArrayList<>(2);

  @Override
  public final void whenClosed(Runnable action) {
    synchronized (closeLock) {
      if (closeActions != null) {
        closeActions.add(action);
        return;
      }
    }
    action.run();
  }

  /**
   * The connection has closed (locally, or the peer closed it): runs the {@link #whenClosed}
   * actions, once. Subclasses call it from every path that ends the connection.
   */
  protected final void notifyClosed() {
    List<Runnable> actions;
    synchronized (closeLock) {
      actions = closeActions;
      closeActions = null;
    }
    if (actions == null) {
      return;
    }
    for (Runnable action : actions) {
      try {
        action.run();
      } catch (RuntimeException e) {
        // One listener's bug must not keep the others from hearing, nor fail the close.
        log.warn("a close listener of the transport to {} threw", address, e);
      }
    }
  }

  /** The server's address, as given. */
  public InetSocketAddress remoteAddress() {
    return address;
  }

  /**
   * Sends one whole frame, prefix included (unframed: one message); the array is reused once this
   * returns, so an adapter that sends later copies it.
   */
  protected abstract void sendFrame(byte[] frame, int length) throws TTransportException;

  /** Waits for the next response frame and hands it to {@link #setFrame}. */
  protected abstract void receiveFrame() throws TTransportException;

  /** Fails unless the transport is open; {@code operation} names the caller's step. */
  protected abstract void checkOpen(String operation) throws TTransportException;

  @Override
  public final void nextRequestHeaders(Map<String, String> headers) {
    nextHeaders = headers;
  }

  @Override
  public final void nextDeadline(long deadlineNanos) {
    nextDeadline = deadlineNanos;
    hasNextDeadline = true;
  }

  @Override
  public final Map<String, String> lastReplyHeaders() {
    return replyHeaders;
  }

  /**
   * The headers of the request being sent: a {@code HeaderScope}'s current on this thread, then
   * those the pool set for it ({@link #nextRequestHeaders}), which are used once.
   */
  protected final Map<String, String> takeRequestHeaders() {
    HeaderSlot scope = HeaderSlot.current();
    Map<String, String> own = nextHeaders;
    nextHeaders = Map.of();
    if (scope == null || scope.request().isEmpty()) {
      return own;
    }
    if (own.isEmpty()) {
      return scope.request();
    }
    Map<String, String> all = new LinkedHashMap<>(scope.request());
    all.putAll(own);
    return all;
  }

  /**
   * How long the caller waits for the request being sent, in milliseconds (at least 1): {@code
   * readTimeoutMillis}, or the deadline the pool set ({@link #nextDeadline}) when sooner; the
   * deadline is used once.
   */
  protected final long takeTimeoutMillis(long readTimeoutMillis) {
    long millis = readTimeoutMillis;
    if (hasNextDeadline) {
      hasNextDeadline = false;
      long left = TimeUnit.NANOSECONDS.toMillis(nextDeadline - System.nanoTime() + 999_999);
      millis = Math.min(millis, left);
    }
    return Math.max(1, millis);
  }

  /** The reply that arrived carried {@code headers}; a current {@code HeaderScope} hears too. */
  protected final void replied(Map<String, String> headers) {
    replyHeaders = headers;
    HeaderSlot scope = HeaderSlot.current();
    if (scope != null) {
      scope.replied(headers);
    }
  }

  /** The next response frame: {@code length} bytes of {@code array}, from index 0. */
  protected final void setFrame(byte[] array, int length) {
    setFrame(array, 0, length);
  }

  /** The next response frame: {@code length} bytes of {@code array}, from {@code offset}. */
  protected final void setFrame(byte[] array, int offset, int length) {
    frame = array;
    framePos = offset;
    frameEnd = offset + length;
    try {
      resetConsumedMessageSize(-1);
      updateKnownMessageSize(length);
    } catch (TTransportException e) {
      throw new IllegalStateException(e); // a frame of at most maxFrameSize always fits
    }
  }

  /** {@link #open()} on a transport that is open or was closed: it is opened once, when made. */
  @Override
  public void open() throws TTransportException {
    checkOpen("open");
    throw new TTransportException(
        TTransportException.ALREADY_OPEN,
        "transport to " + ClientErrors.peer(address) + " is already open");
  }

  @Override
  public final void write(byte[] buf, int off, int len) throws TTransportException {
    long size = (long) outSize + len;
    if (size - prefix > maxFrameSize) {
      // The header is written first, so the method can be read from what is here already.
      String method = MessageHeaders.methodName(out, prefix, outSize - prefix);
      outSize = prefix;
      throw FrameSizeException.ofRequest(
          (int) Math.min(Integer.MAX_VALUE, size - prefix), maxFrameSize, address, method);
    }
    if (size > out.length) {
      out =
          Arrays.copyOf(
              out, (int) Math.min(maxFrameSize + prefix, Math.max(size, 2L * out.length)));
    }
    System.arraycopy(buf, off, out, outSize, len);
    outSize = (int) size;
  }

  /**
   * Sends the bytes written since the last flush as one frame (or one bare message). On an
   * interrupted thread it sends nothing, closes the transport and throws, the interrupt flag kept:
   * a caller being cancelled does not start a call it will not wait for.
   */
  @Override
  public final void flush() throws TTransportException {
    checkOpen("flush");
    int size = outSize;
    if (size == prefix) {
      return;
    }
    outSize = prefix;
    sentSize = 0;
    if (Thread.currentThread().isInterrupted()) {
      close();
      throw new TTransportException(
          TTransportException.UNKNOWN,
          "flush() to "
              + ClientErrors.peer(address)
              + " called on an interrupted thread; nothing sent, transport closed");
    }
    if (prefix != 0) {
      Framing.encodeLength(size - prefix, out, 0);
    }
    sentSize = size;
    sendFrame(out, size);
  }

  /**
   * The method of the request last flushed, for an error's message: read from its header, which
   * stays in the write buffer until the next write (a read that times out comes before it); {@code
   * null} once more is written, or for a protocol whose header is not read in place (JSON).
   */
  protected final String lastMethod() {
    return outSize == prefix && sentSize > prefix
        ? MessageHeaders.methodName(out, prefix, sentSize - prefix)
        : null;
  }

  @Override
  public final int read(byte[] buf, int off, int len) throws TTransportException {
    if (len <= 0) {
      return 0;
    }
    if (framePos == frameEnd) {
      checkOpen("read");
      receiveFrame();
      repliesSeen = true;
      checkReplyProtocol();
    }
    int n = Math.min(len, frameEnd - framePos);
    System.arraycopy(frame, framePos, buf, off, n);
    consumeBuffer(n);
    return n;
  }

  @Override
  public final byte[] getBuffer() {
    return frame;
  }

  @Override
  public final int getBufferPosition() {
    return framePos;
  }

  @Override
  public final int getBytesRemainingInBuffer() {
    return frameEnd - framePos;
  }

  @Override
  public final void consumeBuffer(int len) {
    framePos += len;
    try {
      countConsumedMessageBytes(len);
    } catch (TTransportException e) {
      // Reads never pass the frame's end, and the frame set the budget: this cannot happen.
      throw new IllegalStateException(e);
    }
  }

  /**
   * A reply in another protocol than the request last sent (the server answered a compact request
   * in binary) fails here, naming both, rather than in the protocol's "Expected protocol id".
   */
  private void checkReplyProtocol() throws TTransportException {
    if (frameEnd - framePos < 1 || sentSize <= prefix) {
      return;
    }
    String ours = FirstBytes.protocolOf(out[prefix]);
    byte[] first = Arrays.copyOfRange(frame, framePos, Math.min(frameEnd, framePos + 4));
    String mismatch = ClientErrors.replyInOtherProtocol(address, first, first.length, ours);
    if (mismatch != null) {
      close();
      throw new TTransportException(
          TTransportException.CORRUPTED_DATA, mismatch + "; transport closed");
    }
  }

  /**
   * How this connection's requests look ({@link ClientErrors#shape}), for a close before any reply;
   * subclasses that know their options set it once, when made.
   */
  protected final void shape(ClientOptions options) {
    shape = ClientErrors.shape(options);
  }

  /** {@code END_OF_FILE}: the peer closed while waiting, with the likely cause before any reply. */
  protected final TTransportException closedByPeer() {
    return ClientErrors.closedByPeer(address, repliesSeen ? null : shape);
  }

  /** Drops what a closed transport still holds: a late response is never read by a next call. */
  protected final void dropFrame() {
    framePos = 0;
    frameEnd = 0;
  }
}
