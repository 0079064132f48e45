package io.thriftnio.core.internal.client;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.Framing;
import io.thriftnio.core.util.internal.HeaderSlot;
import io.thriftnio.core.util.internal.MessageHeaders;
import io.thriftnio.core.wire.ByteSource;
import io.thriftnio.core.wire.Decoded;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Map;
import org.apache.thrift.transport.TNonblockingSocket;
import org.apache.thrift.transport.TTransportException;

/**
 * The THeader connection of a stock generated {@code AsyncClient}: a {@code TNonblockingSocket}
 * between libthrift's {@code TAsyncMethodCall}, which writes and reads framed messages, and a
 * server that speaks THeader ({@link WireKind#HEADER}). The call never knows:
 *
 * <pre>
 * TAsyncMethodCall writes | len | message |   collected whole, then sent as one THeader frame:
 *                                          -&gt; | len | 0FFF | flags | seqid | section | message |
 *                                             (THeaderSteps: protocol id, info headers)
 * TAsyncMethodCall reads  | len | message |   the reply decoded by THeaderSteps (maxFrameSize,
 *                                          &lt;- header section rules, zlib), its info headers
 *                                             handed to the call, its message presented framed
 * </pre>
 *
 * <p>The request's headers are the call's ({@link #beginCall}: a {@code HeaderScope}'s, then the
 * interceptors' through {@link #nextRequestHeaders}); its flags and sequence id are those of every
 * THeader client of this library. A message THeader cannot name (JSON, non-strict binary) fails its
 * call before a byte is sent.
 *
 * <p>Non-blocking throughout, on the client's selector thread: a request leaves as the socket takes
 * it (the last byte the call hands over is taken only once the whole frame is sent, so the call
 * keeps asking to write until then); a reply is read as it arrives into a buffer that grows with
 * the bytes received, never past the frame length the codec checked against {@code maxFrameSize}. A
 * reply that cannot be decoded fails its call with a {@code TTransportException} naming the server
 * and why, and closes the socket. Not part of the API.
 */
public final class THeaderNonblockingSocket extends TNonblockingSocket
    implements HeaderTransport, AsyncClientSocket {

  private static final int FIRST_READ_SIZE = 8 * 1024;
  private static final int GROWTH_STEP = 64 * 1024;

  private final InetSocketAddress address;
  private final int maxFrameSize;
  private final THeaderSteps steps;
  private SelectionKey key;

  // The call's, set on the calling thread before the client queues the call for its selector
  // thread: that queue orders these writes before the reads there.
  private WireHeaders headers;
  private long timeoutMillis;

  // The request being collected, then sent; the selector thread's.
  private final byte[] lengthBytes = new byte[Framing.HEADER_SIZE];
  private int lengthFill;
  private byte[] message;
  private int messageFill;
  private ByteBuffer[] out;

  // The bytes read and not consumed, and the reply being handed over; the selector thread's.
  private byte[] in = new byte[FIRST_READ_SIZE];
  private int filled;
  private ByteBuffer reply;
  private int replyConsumes;
  private volatile Map<String, String> replyHeaders = Map.of();
  private volatile boolean replyWhole = true; // no reply owed or partly handed over
  private volatile String lastMethod;

  /**
   * @param channel a connected channel, the connection's
   * @param options {@link WireKind#HEADER}; its {@code maxFrameSize} bounds replies (after zlib
   *     too) and requests
   * @param address the server, as messages name it
   * @throws IllegalArgumentException if {@code options} are not THeader's
   */
  public THeaderNonblockingSocket(
      SocketChannel channel, ClientOptions options, InetSocketAddress address)
      throws IOException, TTransportException {
    super(channel);
    this.address = address;
    this.maxFrameSize = options.maxFrameSize();
    this.steps = new THeaderSteps(options, address);
    // libthrift checks the decoded message's length again against its configuration: ours is
    // the bound.
    setMaxFrameSize(maxFrameSize);
  }

  /**
   * A call starts on this connection, on the calling thread: its request sends the headers of
   * {@code scope} (with the interceptors' over them), and {@code timeoutMillis} as {@code
   * client_timeout} (0: none); its reply's headers reach {@code scope}.
   */
  public void beginCall(HeaderSlot scope, long timeoutMillis) {
    this.headers = WireHeaders.forCall(scope, true);
    this.timeoutMillis = timeoutMillis;
    this.replyHeaders = Map.of();
  }

  @Override
  public void nextRequestHeaders(Map<String, String> requestHeaders) {
    if (headers == null) {
      headers = WireHeaders.forCall(null, true);
    }
    headers.addRequest(requestHeaders);
  }

  @Override
  public void nextDeadline(long deadlineNanos) {
    long left = Math.max(1, (deadlineNanos - System.nanoTime() + 999_999) / 1_000_000);
    timeoutMillis = timeoutMillis > 0 ? Math.min(timeoutMillis, left) : left;
  }

  @Override
  public Map<String, String> lastReplyHeaders() {
    return replyHeaders;
  }

  /** Whether bytes arrived that no call asked for: the connection must not be lent again. */
  public boolean hasUnreadBytes() {
    return filled > 0 && reply == null;
  }

  @Override
  public SelectionKey registerSelector(Selector selector, int interests) throws IOException {
    // A fresh client may take the connection over after a declared exception, whose call
    // cancelled the key: as on a framed connection.
    key = FramedNonblockingSocket.register(getSocketChannel(), selector, interests);
    return key;
  }

  /**
   * Takes bytes of the framed request the call writes; once it is whole, sends it as a THeader
   * frame. Returns the bytes of {@code src} taken: all but the request's last one until the frame
   * has left, so that the call keeps the socket registered for writing.
   */
  @Override
  public int write(ByteBuffer src) throws TTransportException {
    int start = src.position();
    if (out == null) {
      collect(src);
      if (out == null) {
        return src.position() - start;
      }
    }
    try {
      getSocketChannel().write(out);
    } catch (IOException e) {
      closeNow();
      throw ClientErrors.connectionFailed(address, e);
    }
    if (out[out.length - 1].hasRemaining()) {
      return src.position() - start;
    }
    out = null;
    lengthFill = 0;
    message = null;
    src.position(src.position() + 1); // the request's last byte, held back until now
    return src.position() - start;
  }

  private void collect(ByteBuffer src) throws TTransportException {
    while (lengthFill < Framing.HEADER_SIZE && src.hasRemaining()) {
      lengthBytes[lengthFill++] = src.get();
    }
    if (lengthFill < Framing.HEADER_SIZE) {
      return;
    }
    if (message == null) {
      replyWhole = false; // a request leaves: its reply is owed
      int length = Framing.decodeLength(lengthBytes, 0);
      if (length <= 0 || length > maxFrameSize) {
        throw FrameSizeException.ofRequest(length, maxFrameSize, address, null);
      }
      if (hasUnreadBytes()) {
        closeNow(); // the bytes would pass for this call's reply
        throw ClientErrors.protocolViolation(address, filled, "with no call waiting for it");
      }
      message = new byte[length];
      messageFill = 0;
    }
    int n = Math.min(src.remaining(), message.length - messageFill);
    src.duplicate().get(message, messageFill, n);
    messageFill += n;
    boolean whole = messageFill == message.length;
    src.position(src.position() + (whole ? n - 1 : n));
    if (whole) {
      lastMethod = MessageHeaders.methodName(message, 0, message.length);
      out = encode(message);
    }
  }

  /** The THeader frame of {@code request}: the one head encoder, and the message as written. */
  private ByteBuffer[] encode(byte[] request) throws TTransportException {
    ByteBuffer body = ByteBuffer.wrap(request);
    Map<String, String> sent = headers == null ? Map.of() : headers.request();
    // Refused: nothing was written; the client fails the call and the pool closes the connection.
    byte[] head = steps.requestHead(body, sent, timeoutMillis);
    return new ByteBuffer[] {ByteBuffer.wrap(head), body};
  }

  /**
   * Hands over the reply as the call reads a framed one: its length, then its message. Reads and
   * decodes the THeader reply first, returning 0 until it is whole.
   */
  @Override
  public int read(ByteBuffer dst) throws TTransportException {
    if (reply == null && !receive()) {
      return 0;
    }
    int n = Math.min(dst.remaining(), reply.remaining());
    ByteBuffer part = reply.duplicate();
    part.limit(part.position() + n);
    dst.put(part);
    reply.position(reply.position() + n);
    if (reply.hasRemaining() && key != null) {
      // The call reads the message on its next selection, but its bytes left the socket already:
      // a socket is writable at once, which selects the key again. The call sets its own interest
      // once the reply is read.
      key.interestOps(key.interestOps() | SelectionKey.OP_WRITE);
    } else {
      reply = null;
      filled -= replyConsumes;
      System.arraycopy(in, replyConsumes, in, 0, filled);
      replyWhole = true;
    }
    return n;
  }

  /** Reads what the socket holds; whether a reply is now ready to hand over. */
  private boolean receive() throws TTransportException {
    while (true) {
      boolean whole;
      try {
        whole = steps.reply(ByteSource.of(in), 0, filled);
      } catch (TTransportException e) {
        closeNow();
        throw e;
      }
      if (whole) {
        deliver();
        return true;
      }
      int room = room(); // may grow the buffer: before it is wrapped
      int read;
      try {
        read = getSocketChannel().read(ByteBuffer.wrap(in, filled, room));
      } catch (IOException e) {
        closeNow();
        throw ClientErrors.connectionFailed(address, lastMethod(), e, "");
      }
      if (read < 0) {
        closeNow();
        throw steps.endOfStream(ByteSource.of(in), 0, filled); // cut short, or closed
      }
      if (read == 0) {
        return false;
      }
      filled += read;
    }
  }

  /**
   * Room to read into, the buffer grown when full: toward the frame's length (which the codec
   * checked against {@code maxFrameSize} once its four bytes were here) as bytes arrive.
   */
  private int room() {
    if (filled == in.length) {
      long frame = Framing.HEADER_SIZE + (long) Framing.decodeLength(in, 0);
      long grown = Math.max((long) filled * 2, filled + (long) GROWTH_STEP);
      byte[] bigger = new byte[(int) Math.min(frame, grown)];
      System.arraycopy(in, 0, bigger, 0, filled);
      in = bigger;
    }
    return in.length - filled;
  }

  /** Presents the reply the steps decoded as the call reads it: framed. */
  private void deliver() {
    Decoded d = steps.decoded();
    byte[] array = d.payloadArray();
    int length = array != null ? array.length : d.payloadLength();
    if (array != null) { // inflated: an array of its own
      reply = ByteBuffer.allocate(Framing.HEADER_SIZE + length).putInt(length).put(array).flip();
    } else {
      // The length goes over the end of the header section, which is read already: no copy.
      int at = d.payloadOffset() - Framing.HEADER_SIZE;
      Framing.encodeLength(length, in, at);
      reply = ByteBuffer.wrap(in, at, Framing.HEADER_SIZE + length);
    }
    replyConsumes = d.consumed();
    Map<String, String> received = steps.replyHeaders();
    replyHeaders = received;
    if (headers != null) {
      headers.replied(received);
    }
  }

  @Override
  public String lastMethod() {
    return lastMethod;
  }

  @Override
  public boolean betweenReplies() {
    return replyWhole && !hasUnreadBytes();
  }

  /** Held off while no reply is partly read; see {@link AsyncClientSocket}. */
  @Override
  public void close() {
    if (!betweenReplies()) {
      closeNow();
    }
  }

  @Override
  public void closeNow() {
    replyWhole = false;
    super.close();
  }

  @Override
  public String toString() {
    return "THeaderNonblockingSocket{" + ClientErrors.peer(address) + "}";
  }
}
