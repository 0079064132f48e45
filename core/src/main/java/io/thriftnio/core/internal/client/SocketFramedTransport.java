package io.thriftnio.core.internal.client;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.internal.FrameLength;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.Framing;
import io.thriftnio.core.wire.ByteSource;
import io.thriftnio.core.wire.Decoded;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
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
 * hold with "reply" for "frame".
 *
 * <p>With {@link WireKind#HEADER} options it speaks THeader: each request goes out behind its
 * THeader head ({@link THeaderSteps}: protocol id, info headers, {@code client_timeout}) in one
 * write, and each reply frame is read as above, then its header checked and read by the codec; its
 * payload is a view of the frame's array (zlib: an array of its own). Not part of the API.
 */
public final class SocketFramedTransport extends FramedClientTransport {

  private static final int GROWTH_STEP = 64 * 1024;

  private static final byte[] NO_BYTES = new byte[0];
  private static final int READ_BUFFER_SIZE = 8 * 1024;

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;
  private final long readTimeoutMillis;
  private final ReplyDeadline deadline;
  private final byte[] lengthBytes = new byte[Framing.HEADER_SIZE];
  private final Runnable onClose;
  private volatile boolean closed;

  /** Responses owed: requests flushed and not yet answered (oneway ones never are). */
  private int owed;

  /** Cuts replies out of the stream on an unframed connection; null on a framed one. */
  private final UnframedReplies unframed;

  /** The THeader wire: heads written, replies read; null unless HEADER. */
  private final THeaderSteps header;

  private byte[] request = NO_BYTES;

  private SocketFramedTransport(
      InetSocketAddress address, ClientOptions options, Socket socket, Runnable onClose)
      throws TTransportException, IOException {
    super(address, options.maxFrameSize(), options.wireKind() == WireKind.FRAMED);
    shape(options);
    this.socket = socket;
    // Buffered so that a small response (length and frame) takes one read call, as TSocket's
    // does; a large frame is read straight into the frame array, past the buffer.
    // callTimeout bounds the whole reply: each read below the buffer gets what is left of it.
    this.readTimeoutMillis = options.callTimeout().toMillis();
    this.deadline = new ReplyDeadline(socket, readTimeoutMillis);
    this.in = new BufferedInputStream(deadline.bound(socket.getInputStream()), READ_BUFFER_SIZE);
    this.out = socket.getOutputStream();
    this.onClose = onClose;
    this.unframed =
        options.wireKind() == WireKind.UNFRAMED ? new UnframedReplies(in, address, options) : null;
    this.header = options.wireKind() == WireKind.HEADER ? new THeaderSteps(options, address) : null;
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
    if (header != null) {
      sendHeaderFrame(frame, length);
      return;
    }
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
    deadline.start();
    try {
      if (unframed != null) {
        receiveUnframed();
        return;
      }
      if (!BlockingSockets.readFully(in, lengthBytes, 0, Framing.HEADER_SIZE)) {
        close();
        throw closedByPeer();
      }
      int length = Framing.decodeLength(lengthBytes, 0);
      try {
        FrameLength.check(length, maxFrameSize, address);
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
      if (header != null) {
        setHeaderFrame(frame, length);
        return;
      }
      setFrame(frame, length);
    } catch (SocketTimeoutException e) {
      close(); // a late response would otherwise be read by the next call
      throw ClientErrors.readTimedOut(address, readTimeoutMillis, lastMethod(), e);
    } catch (IOException e) {
      if (closed) {
        throw ClientErrors.transportClosed(address, "read"); // closed by another thread
      }
      close();
      throw ClientErrors.connectionFailed(address, lastMethod(), e, "");
    }
  }

  /** A THeader request: its head and the message in one write. */
  private void sendHeaderFrame(byte[] message, int length) throws TTransportException {
    ByteBuffer body = ByteBuffer.wrap(message, 0, length);
    // Refused: nothing was written, and the transport stays usable.
    byte[] head =
        header.requestHead(body, takeRequestHeaders(), takeTimeoutMillis(readTimeoutMillis));
    int total = head.length + length;
    if (request.length < total) {
      request = new byte[total];
    }
    System.arraycopy(head, 0, request, 0, head.length);
    System.arraycopy(message, 0, request, head.length, length);
    try {
      out.write(request, 0, total);
    } catch (IOException e) {
      close();
      throw ClientErrors.connectionFailed(address, e);
    }
    if (owed < Integer.MAX_VALUE) {
      owed++;
    }
  }

  /**
   * A THeader reply frame, whole in {@code frame}: its header checked and read by the codec (over
   * the length prefix and the frame, without copying either).
   */
  private void setHeaderFrame(byte[] frame, int length) throws TTransportException {
    boolean whole;
    try {
      whole = header.reply(new PrefixedFrame(frame), 0, Framing.HEADER_SIZE + length);
    } catch (TTransportException e) {
      close();
      throw e;
    }
    if (!whole) { // cannot be: the frame is all here, and its length was checked
      close();
      throw new TTransportException(
          TTransportException.CORRUPTED_DATA,
          "unreadable THeader reply from " + ClientErrors.peer(address) + "; connection closed");
    }
    Decoded d = header.decoded();
    replied(header.replyHeaders());
    byte[] array = d.payloadArray();
    if (array != null) {
      setFrame(array, array.length);
    } else {
      setFrame(frame, d.payloadOffset() - Framing.HEADER_SIZE, d.payloadLength());
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
        throw closedByPeer();
      }
      read += chunk;
    }
    return frame;
  }

  /** A frame's length prefix and its bytes as one source, for the THeader codec. */
  private final class PrefixedFrame implements ByteSource {
    private final byte[] frame;

    PrefixedFrame(byte[] frame) {
      this.frame = frame;
    }

    @Override
    public byte getByte(int index) {
      return index < Framing.HEADER_SIZE ? lengthBytes[index] : frame[index - Framing.HEADER_SIZE];
    }

    @Override
    public int getInt(int index) {
      return (getByte(index) & 0xff) << 24
          | (getByte(index + 1) & 0xff) << 16
          | (getByte(index + 2) & 0xff) << 8
          | (getByte(index + 3) & 0xff);
    }

    @Override
    public void getBytes(int index, byte[] dst, int offset, int length) {
      for (int i = 0; i < length && index + i < Framing.HEADER_SIZE; i++) {
        dst[offset + i] = lengthBytes[index + i];
      }
      int skip = Math.max(0, Framing.HEADER_SIZE - index);
      if (skip < length) {
        System.arraycopy(
            frame, index + skip - Framing.HEADER_SIZE, dst, offset + skip, length - skip);
      }
    }
  }

  @Override
  public String toString() {
    return "SocketFramedTransport{"
        + ClientErrors.peer(address)
        + (unframed != null ? ", unframed" : header != null ? ", THeader" : "")
        + (closed ? ", closed}" : "}");
  }
}
