package io.thriftnio.core.internal.client;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.FrameSizeException;
import io.thriftnio.core.Framing;
import io.thriftnio.core.WireKind;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.Arrays;
import org.apache.thrift.transport.TTransportException;

/**
 * The plain-TCP sync transport of every {@code ClientIo}: a blocking socket driven by the caller's
 * thread, so a call costs what {@code TSocket} + {@code TFramedTransport} cost: one write per
 * request, one read call for a small response, no thread handoff. An event loop would add two
 * handoffs and a copy per call and buy nothing for one call at a time.
 *
 * <p>A response frame is read into an array of its own (a binary result is a view of it and must
 * outlive the next call), grown as its bytes arrive (never to the declared length up front) and
 * bounded by {@code maxFrameSize}. A frame read when every flushed request has had its response is
 * a protocol violation. Every failure closes the transport, since its stream may hold half a
 * message.
 *
 * <p>With {@link WireKind#UNFRAMED} options the same transport speaks to an unframed server ({@code
 * TServerSocket} without framing, a Python or HBase Thrift server): requests leave without the
 * prefix and each reply's end is found by walking it ({@link UnframedReplies}); the rules above
 * hold with "reply" for "frame". Not part of the API.
 */
public final class SocketFramedTransport extends FramedClientTransport {

  private static final int GROWTH_STEP = 64 * 1024;

  private static final byte[] NO_BYTES = new byte[0];
  private static final int READ_BUFFER_SIZE = 8 * 1024;

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;
  private final long readTimeoutMillis;
  private final byte[] header = new byte[Framing.HEADER_SIZE];
  private final Runnable onClose;
  private volatile boolean closed;

  /** Responses owed: requests flushed and not yet answered (oneway ones never are). */
  private int owed;

  /** Cuts replies out of the stream on an unframed connection; null on a framed one. */
  private final UnframedReplies unframed;

  private SocketFramedTransport(
      InetSocketAddress address, ClientOptions options, Socket socket, Runnable onClose)
      throws TTransportException, IOException {
    super(address, options.maxFrameSize(), options.wireKind() != WireKind.UNFRAMED);
    this.socket = socket;
    // Buffered so that a small response (length and frame) takes one read call, as TSocket's
    // does; a large frame is read straight into the frame array, past the buffer.
    this.in = new BufferedInputStream(socket.getInputStream(), READ_BUFFER_SIZE);
    this.out = socket.getOutputStream();
    this.readTimeoutMillis = options.callTimeout().toMillis();
    this.onClose = onClose;
    this.unframed =
        options.wireKind() == WireKind.UNFRAMED ? new UnframedReplies(in, address, options) : null;
  }

  /**
   * Connects within the options' connect timeout.
   *
   * @param onClose runs once when the transport closes
   * @throws TTransportException {@code NOT_OPEN} if refused, {@code TIMED_OUT} after the timeout
   */
  public static SocketFramedTransport connect(
      InetSocketAddress address, ClientOptions options, Runnable onClose)
      throws TTransportException {
    Socket socket = new Socket();
    BlockingSockets.connect(socket, address, options.connectTimeout(), options.callTimeout());
    try {
      return new SocketFramedTransport(address, options, socket, onClose);
    } catch (IOException | RuntimeException e) {
      BlockingSockets.closeQuietly(socket);
      throw ClientErrors.connectFailed(address, e);
    }
  }

  @Override
  public boolean isOpen() {
    return !closed;
  }

  /** Closes the socket; a later read or flush fails with {@code NOT_OPEN}. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    dropFrame();
    if (unframed != null) {
      unframed.clear();
    }
    BlockingSockets.closeQuietly(socket);
    onClose.run();
    notifyClosed();
  }

  @Override
  protected void checkOpen(String operation) throws TTransportException {
    if (closed) {
      throw ClientErrors.transportClosed(address, operation);
    }
  }

  @Override
  protected void sendFrame(byte[] frame, int length) throws TTransportException {
    try {
      out.write(frame, 0, length);
    } catch (IOException e) {
      close();
      throw ClientErrors.connectionFailed(address, e);
    }
    if (owed < Integer.MAX_VALUE) {
      owed++;
    }
  }

  @Override
  protected void receiveFrame() throws TTransportException {
    try {
      if (unframed != null) {
        receiveUnframed();
        return;
      }
      if (!BlockingSockets.readFully(in, header, 0, Framing.HEADER_SIZE)) {
        close();
        throw ClientErrors.closedByPeer(address);
      }
      int length = Framing.decodeLength(header, 0);
      try {
        Framing.checkLength(length, maxFrameSize, address);
      } catch (FrameSizeException e) {
        close();
        throw ClientErrors.connectionFailed(address, e);
      }
      byte[] frame = readFrame(length);
      if (owed == 0) {
        close();
        throw ClientErrors.protocolViolation(address, length, "with no call waiting for it");
      }
      owed--;
      setFrame(frame, length);
    } catch (SocketTimeoutException e) {
      close(); // a late response would otherwise be read by the next call
      throw ClientErrors.readTimedOut(address, readTimeoutMillis, lastMethod(), e);
    } catch (IOException e) {
      if (closed) {
        throw ClientErrors.transportClosed(address, "read"); // closed by another thread
      }
      close();
      throw ClientErrors.connectionFailed(address, e);
    }
  }

  /** The next unframed reply, its end found by walking it; the caller maps IO failures. */
  private void receiveUnframed() throws IOException, TTransportException {
    int length;
    try {
      length = unframed.next();
    } catch (TTransportException e) {
      close();
      throw e;
    }
    if (owed == 0) {
      close();
      throw ClientErrors.protocolViolation(address, length, "with no call waiting for it");
    }
    owed--;
    // A reply of its own, as for a frame (see readFrame): the buffer also holds what follows it.
    setFrame(Arrays.copyOf(unframed.buffer(), length), length);
  }

  /**
   * The frame's bytes in an array of their own, grown only as they arrive. Never the last frame's
   * array: libthrift's protocols hand out binary fields as views of the transport's buffer (its
   * fast path), so a caller's {@code ByteBuffer} result would change under it at the next call, as
   * it never does with {@code TFramedTransport}, which also reads each frame into a new array.
   */
  private byte[] readFrame(int length) throws IOException, TTransportException {
    byte[] frame = NO_BYTES;
    int read = 0;
    while (read < length) {
      if (frame.length == read) {
        long grown = Math.max((long) read * 2, read + (long) GROWTH_STEP);
        frame = Arrays.copyOf(frame, (int) Math.min(length, grown));
      }
      int chunk = Math.min(length, frame.length) - read;
      if (!BlockingSockets.readFully(in, frame, read, chunk)) {
        close();
        throw ClientErrors.closedByPeer(address);
      }
      read += chunk;
    }
    return frame;
  }

  @Override
  public String toString() {
    return "SocketFramedTransport{"
        + ClientErrors.peer(address)
        + (unframed != null ? ", unframed" : "")
        + (closed ? ", closed}" : "}");
  }
}
