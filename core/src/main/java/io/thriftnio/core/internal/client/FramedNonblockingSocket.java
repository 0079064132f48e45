package io.thriftnio.core.internal.client;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.internal.FrameLength;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.Framing;
import io.thriftnio.core.util.internal.MessageHeaders;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import org.apache.thrift.transport.TNonblockingSocket;
import org.apache.thrift.transport.TTransportException;

/**
 * The framed connection of a stock generated {@code AsyncClient} in a pool: a {@code
 * TNonblockingSocket} that bounds replies by the pool's {@code maxFrameSize} and that a fresh
 * client can take over after a whole reply ({@link AsyncClientSocket}).
 *
 * <p>libthrift's {@code TAsyncMethodCall} reads a reply's four length bytes, checks them against
 * its own configuration's limit, then allocates the frame. This socket reads the length bytes
 * itself and hands them to the call only once {@link FrameLength#check} accepted them against
 * {@code maxFrameSize}: a reply over the limit fails its call with the library's {@link
 * FrameSizeException} (as {@link ClientErrors#connectionFailed}), before any allocation, and the
 * connection closes.
 *
 * <p>libthrift cancels the socket's selection key when a call's result is an exception; the channel
 * stays registered with the selector until its next selection. The next call registers the channel
 * again on the selector thread, possibly before that selection: {@link #registerSelector} then lets
 * the selector drop the cancelled key first. Not part of the API.
 */
public final class FramedNonblockingSocket extends TNonblockingSocket implements AsyncClientSocket {
  private final InetSocketAddress address;
  private final int maxFrameSize;

  // The selector thread's: the reply being read.
  private final byte[] lengthBytes = new byte[Framing.HEADER_SIZE];
  private int lengthFill;
  private int bodyLeft = -1; // -1: reading a length
  private volatile boolean betweenReplies = true;
  private volatile String lastMethod;

  /**
   * @param channel a connected channel, the connection's
   * @param options its {@code maxFrameSize} bounds replies
   * @param address the server, as messages name it
   */
  public FramedNonblockingSocket(
      SocketChannel channel, ClientOptions options, InetSocketAddress address)
      throws IOException, TTransportException {
    super(channel);
    this.address = address;
    this.maxFrameSize = options.maxFrameSize();
    // libthrift checks the length again against its configuration: ours is the bound.
    setMaxFrameSize(maxFrameSize);
  }

  @Override
  public SelectionKey registerSelector(Selector selector, int interests) throws IOException {
    return register(getSocketChannel(), selector, interests);
  }

  /**
   * Registers {@code channel} with {@code selector}, on the selector's thread: a key an earlier
   * call cancelled is dropped first (a selection that does not block), since a channel cannot be
   * registered again while its cancelled key is still the selector's.
   */
  static SelectionKey register(SocketChannel channel, Selector selector, int interests)
      throws IOException {
    SelectionKey old = channel.keyFor(selector);
    if (old != null && !old.isValid()) {
      selector.selectNow(); // the selector thread's own: drops cancelled keys
    }
    return channel.register(selector, interests);
  }

  @Override
  public int write(ByteBuffer src) throws TTransportException {
    betweenReplies = false; // a request leaves: its reply is owed
    if (src.position() == 0 && src.capacity() > Framing.HEADER_SIZE) {
      // The call writes a four-byte length, then the message from its start: name its method.
      lastMethod = MessageHeaders.methodName(src);
    }
    return super.write(src);
  }

  @Override
  public String lastMethod() {
    return lastMethod;
  }

  /** The reply's length, checked before the call sees it; then its body as it comes. */
  @Override
  public int read(ByteBuffer dst) throws TTransportException {
    if (bodyLeft < 0) {
      int n =
          readSocket(ByteBuffer.wrap(lengthBytes, lengthFill, Framing.HEADER_SIZE - lengthFill));
      lengthFill += n;
      if (lengthFill < Framing.HEADER_SIZE) {
        return 0;
      }
      int length = Framing.decodeLength(lengthBytes, 0);
      try {
        FrameLength.check(length, maxFrameSize, address);
      } catch (FrameSizeException e) {
        closeNow();
        throw ClientErrors.connectionFailed(address, e);
      }
      dst.put(lengthBytes);
      lengthFill = 0;
      bodyLeft = length;
      return Framing.HEADER_SIZE;
    }
    ByteBuffer part = dst;
    if (dst.remaining() > bodyLeft) {
      part = dst.duplicate();
      part.limit(part.position() + bodyLeft);
    }
    int n = readSocket(part);
    if (part != dst) {
      dst.position(dst.position() + n);
    }
    bodyLeft -= n;
    if (bodyLeft == 0) {
      bodyLeft = -1;
      betweenReplies = true;
    }
    return n;
  }

  private int readSocket(ByteBuffer into) throws TTransportException {
    int n;
    try {
      n = getSocketChannel().read(into);
    } catch (IOException e) {
      closeNow();
      throw ClientErrors.connectionFailed(address, lastMethod, e, "");
    }
    if (n < 0) {
      closeNow();
      throw ClientErrors.closedByPeer(address);
    }
    return n;
  }

  @Override
  public boolean betweenReplies() {
    return betweenReplies;
  }

  /** Held off while no reply is partly read; see {@link AsyncClientSocket}. */
  @Override
  public void close() {
    if (!betweenReplies) {
      closeNow();
    }
  }

  @Override
  public void closeNow() {
    betweenReplies = false;
    super.close();
  }

  @Override
  public String toString() {
    return "FramedNonblockingSocket{" + ClientErrors.peer(address) + "}";
  }
}
