package io.thriftnio.core.internal.client;

import io.thriftnio.core.internal.FrameLength;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.Framing;
import io.thriftnio.core.util.internal.MessageHeaders;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransportException;

/**
 * The {@code TSocket} of the sync transports built on stock sockets (the pool's stock factories,
 * the SASL sync transport), whose {@code callTimeout} bounds a whole reply and says what it waited
 * for. A plain {@code TSocket} waits its read timeout afresh for every read, so a server trickling
 * a reply a byte at a time holds a call for as long as it likes, and its timeout reads {@code
 * java.net.SocketTimeoutException: Read timed out}: no peer, no timeout, no method. Here the first
 * read after a request starts a deadline ({@link ReplyDeadline}) that every read of the reply
 * shares, and passing it reports {@code no response to echo from host/10.0.0.7:9090 within
 * callTimeout 5000 ms; transport closed}, the text of this library's own transports, a {@link
 * io.thriftnio.core.util.internal.CallTimeoutException} ({@code TIMED_OUT}); the socket closes
 * itself, so that a late reply is never read by a next call.
 *
 * <p>The method comes from the header of the request last written, of which the first {@value
 * #HEAD_BYTES} bytes are kept (after the length prefix on a framed connection): a name that does
 * not fit, or a protocol whose header is not read in place (JSON), leaves the method out. Not part
 * of the API.
 */
public final class DeadlineSocket extends TSocket {

  /** Enough for the header of any method name up to 240 bytes, whatever the write pattern. */
  static final int HEAD_BYTES = 256;

  private final InetSocketAddress peer;
  private final int skip;
  private final byte[] head;
  private final int maxFrameSize;
  private final byte[] replyLength = new byte[Framing.HEADER_SIZE];
  private int replyLengthSeen;
  private ReplyDeadline deadline;
  private int headSize;
  private boolean flushed = true;
  private boolean awaiting;

  /**
   * @param socket a connected socket
   * @param peer the address connected to, as messages name it
   * @param callTimeoutMillis the deadline of each reply; 0 for none until {@link #callTimeout}
   * @param framed whether each request starts with a 4-byte length prefix
   * @param maxFrameSize on a framed connection, the largest reply frame: a reply's length prefix
   *     over it fails the call with this library's frame-size failure ({@code connection to P
   *     failed: frame length N exceeds maxFrameSize M}) before the framing layer reads it; 0 for no
   *     check here. Checked from the first {@link #callTimeout} on.
   */
  public DeadlineSocket(
      Socket socket,
      InetSocketAddress peer,
      int callTimeoutMillis,
      boolean framed,
      int maxFrameSize)
      throws TTransportException {
    super(socket);
    this.peer = peer;
    this.maxFrameSize = framed ? maxFrameSize : 0;
    this.skip = framed ? Framing.HEADER_SIZE : 0;
    this.head = new byte[skip + HEAD_BYTES];
    if (callTimeoutMillis > 0) {
      callTimeout(callTimeoutMillis);
    }
  }

  /**
   * Refuses a size a reply declares (a string's bytes, a container's least bytes) over the
   * configuration's {@code maxFrameSize} before the protocol allocates for it: libthrift's own
   * bound is its {@code maxMessageSize}, 100 MB by default.
   */
  @Override
  public void checkReadBytesAvailable(long numBytes) throws TTransportException {
    int limit = getConfiguration().getMaxFrameSize();
    if (numBytes > limit) {
      throw new TTransportException(
          TTransportException.MESSAGE_SIZE_LIMIT,
          "a size of "
              + numBytes
              + " bytes declared in a reply from "
              + peer
              + " exceeds maxFrameSize "
              + limit);
    }
    super.checkReadBytesAvailable(numBytes);
  }

  /**
   * Bounds each reply from now on by {@code millis}: before, reads wait as the socket's own read
   * timeout says (a SASL negotiation, say, under its own timeout).
   */
  public void callTimeout(int millis) {
    this.deadline = new ReplyDeadline(getSocket(), millis);
  }

  @Override
  public void write(byte[] buf, int off, int len) throws TTransportException {
    if (flushed) { // the first bytes of a new request
      flushed = false;
      headSize = 0;
    }
    int keep = Math.min(len, head.length - headSize);
    if (keep > 0) {
      System.arraycopy(buf, off, head, headSize, keep);
      headSize += keep;
    }
    try {
      super.write(buf, off, len);
    } catch (TTransportException e) {
      throw deadline == null ? e : restated(e);
    }
  }

  @Override
  public int read(byte[] buf, int off, int len) throws TTransportException {
    ReplyDeadline d = deadline;
    if (d == null) {
      return super.read(buf, off, len);
    }
    if (!awaiting) {
      awaiting = true;
      replyLengthSeen = 0;
      d.start();
    }
    try {
      d.beforeRead(); // should this read block on the socket, it gets what is left of the deadline
    } catch (SocketTimeoutException e) {
      throw timedOut(d, e);
    } catch (IOException e) {
      close();
      throw ClientErrors.connectionFailed(peer, e);
    }
    try {
      int n = super.read(buf, off, len);
      if (maxFrameSize > 0 && replyLengthSeen < Framing.HEADER_SIZE) {
        checkReplyLength(buf, off, n);
      }
      return n;
    } catch (TTransportException e) {
      if (e instanceof FrameSizeException || e.getCause() instanceof FrameSizeException) {
        throw e;
      }
      if (e.getType() == TTransportException.TIMED_OUT) {
        throw timedOut(d, e.getCause() != null ? e.getCause() : e);
      }
      throw restated(e);
    }
  }

  @Override
  public void flush() throws TTransportException {
    flushed = true;
    awaiting = false; // the next read is the first of this request's reply
    try {
      super.flush();
    } catch (TTransportException e) {
      throw deadline == null ? e : restated(e);
    }
  }

  /**
   * libthrift's words for a failed read or write ({@code java.net.SocketException: Connection
   * reset}, {@code Socket is closed by peer.}) in this library's, which name the peer and the call.
   */
  private TTransportException restated(TTransportException e) {
    if (e.getType() == TTransportException.END_OF_FILE) {
      close();
      return ClientErrors.closedByPeer(peer);
    }
    if (e.getCause() instanceof IOException) {
      close();
      return ClientErrors.connectionFailed(peer, method(), e.getCause(), "");
    }
    if (e.getType() == TTransportException.NOT_OPEN) {
      return ClientErrors.transportClosed(peer, "read or write");
    }
    return e;
  }

  /** Collects the reply frame's length prefix from the bytes read, and checks it once whole. */
  private void checkReplyLength(byte[] buf, int off, int n) throws TTransportException {
    int take = Math.min(n, Framing.HEADER_SIZE - replyLengthSeen);
    System.arraycopy(buf, off, replyLength, replyLengthSeen, take);
    replyLengthSeen += take;
    if (replyLengthSeen < Framing.HEADER_SIZE) {
      return;
    }
    try {
      FrameLength.check(Framing.decodeLength(replyLength, 0), maxFrameSize, peer);
    } catch (FrameSizeException e) {
      close(); // the rest of the frame is never read
      throw ClientErrors.connectionFailed(peer, e);
    }
  }

  private TTransportException timedOut(ReplyDeadline d, Throwable cause) {
    close(); // a late reply would otherwise be read by the next call
    return ClientErrors.readTimedOut(peer, d.timeoutMillis(), method(), cause);
  }

  /** The method of the request last written, or {@code null}. */
  String method() {
    return headSize > skip ? MessageHeaders.methodName(head, skip, headSize - skip) : null;
  }
}
