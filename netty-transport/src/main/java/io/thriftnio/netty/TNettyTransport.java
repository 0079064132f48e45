package io.thriftnio.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.thriftnio.core.FrameSizeException;
import io.thriftnio.core.Framing;
import io.thriftnio.core.internal.Checks;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.netty.internal.NettyTls;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.transport.TEndpointTransport;
import org.apache.thrift.transport.TTransportException;

/**
 * A synchronous Thrift transport over one Netty connection, framed like {@code TFramedTransport}:
 * any generated {@code Client} works on it unchanged.
 *
 * <pre>{@code
 * TNettyTransport transport = TNettyTransport.builder(address)
 *     .resources(resources)
 *     .readTimeout(Duration.ofSeconds(5))
 *     .open();
 * BenchService.Client client = new BenchService.Client(new TBinaryProtocol(transport));
 * }</pre>
 *
 * <pre>
 *  write() write() flush()                       read() read() ...
 *  [ payload buffered ] --&gt; [ len | payload ] --&gt; socket
 *                           one frame per flush
 *  socket --&gt; [ len | response ] --&gt; read() blocks until the whole frame has arrived
 * </pre>
 *
 * <p>Writes are buffered until {@link #flush()}, which sends them as one frame without waiting for
 * the socket (a failed write surfaces on the next read, or the next flush). Reads block until the
 * next response frame has arrived, or the read timeout passes: then the transport is closed, since
 * a late response would otherwise be read by the next call, and the read fails with {@link
 * TTransportException#TIMED_OUT}. Each response frame bounds the {@link TConfiguration} message
 * size, as {@code TFramedTransport} does. Every failure is a {@link TTransportException} naming the
 * peer.
 *
 * <p>The peer may only answer: a frame that arrives when every flushed request has had its
 * response (an unsolicited frame), or while an earlier response is still unread (a server that
 * keeps sending), is a protocol violation. The transport then closes the connection, drops the
 * frames it holds, and the waiting or next read fails with {@link
 * TTransportException#CORRUPTED_DATA}: at most one response frame, of at most {@code
 * maxFrameSize} bytes, is ever held. (A oneway request is flushed like any other, so after one the
 * transport accepts one frame it did not ask for; the generated client then rejects its sequence
 * id.)
 *
 * <p>Not thread-safe, like every {@code TTransport}: one call at a time.
 */
public final class TNettyTransport extends TEndpointTransport {

  private static final Object CLOSED = new Object();

  private final InetSocketAddress address;
  private final NettyClientResources resources;
  private final Duration connectTimeout;
  private final long readTimeoutNanos;
  private final int maxFrameSize;
  private final ClientTls tls;
  private final BlockingQueue<Object> inbound = new LinkedBlockingQueue<>();
  /** Responses owed: requests flushed and not yet answered (oneway ones never are). */
  private final AtomicInteger owed = new AtomicInteger();
  /** Response frames received and not yet taken by a read. */
  private final AtomicInteger unread = new AtomicInteger();

  private volatile Channel channel;
  private volatile Throwable writeFailure;
  private volatile boolean closed;
  private byte[] writeBuffer = new byte[256];
  private int writeSize;
  private byte[] frame = new byte[0];
  private int framePos;
  private int frameEnd;

  private TNettyTransport(Builder b) throws TTransportException {
    super(
        new TConfiguration(b.maxFrameSize, b.maxFrameSize, TConfiguration.DEFAULT_RECURSION_DEPTH));
    this.address = b.address;
    this.resources = b.resources != null ? b.resources : NettyClientResources.shared();
    this.connectTimeout = b.connectTimeout;
    this.readTimeoutNanos = b.readTimeout.toNanos();
    this.maxFrameSize = b.maxFrameSize;
    this.tls = b.tls;
  }

  /** A builder for a transport to {@code address}. */
  public static Builder builder(InetSocketAddress address) {
    return new Builder(address);
  }

  /** Builds a {@link TNettyTransport}. */
  public static final class Builder {
    private final InetSocketAddress address;
    private NettyClientResources resources;
    private Duration connectTimeout = Duration.ofSeconds(10);
    private Duration readTimeout = Duration.ofSeconds(30);
    private int maxFrameSize = Framing.DEFAULT_MAX_FRAME_SIZE;
    private ClientTls tls;

    Builder(InetSocketAddress address) {
      this.address = address;
    }

    /** The event loops to connect on. Default: {@link NettyClientResources#shared()}. */
    public Builder resources(NettyClientResources resources) {
      this.resources = resources;
      return this;
    }

    /** Time allowed to establish the connection. Default: 10 seconds. */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = connectTimeout;
      return this;
    }

    /**
     * Time a read waits for the response frame; {@link Duration#ZERO} waits without limit. Default:
     * 30 seconds.
     */
    public Builder readTimeout(Duration readTimeout) {
      this.readTimeout = readTimeout;
      return this;
    }

    /**
     * The largest frame payload sent or accepted, in bytes. Default: {@value
     * Framing#DEFAULT_MAX_FRAME_SIZE}, libthrift's default.
     */
    public Builder maxFrameSize(int maxFrameSize) {
      this.maxFrameSize = maxFrameSize;
      return this;
    }

    /**
     * Speaks TLS: {@link TNettyTransport#open()} returns once the handshake has completed, and
     * fails with a {@link TTransportException} naming the peer if it fails ({@code NOT_OPEN}) or
     * times out ({@code TIMED_OUT}). Default: {@code null}, plain TCP.
     *
     * @param tls the TLS settings, or {@code null} for plain TCP
     * @return this builder
     */
    public Builder tls(ClientTls tls) {
      this.tls = tls;
      return this;
    }

    /**
     * Validates the settings and creates the transport, not yet connected: {@link
     * TNettyTransport#open()} connects.
     *
     * @throws IllegalArgumentException if a value is out of range
     * @throws IllegalStateException if TLS asks for OPENSSL and netty-tcnative is not available
     */
    public TNettyTransport build() {
      Checks.notNull("address", address);
      Checks.positive("connectTimeout", connectTimeout);
      Checks.nonNegative("readTimeout", readTimeout);
      Framing.checkMaxFrameSize(maxFrameSize);
      if (tls != null) {
        NettyTls.clientContext(tls); // fails now, not at open(), on an unusable provider or key
      }
      try {
        return new TNettyTransport(this);
      } catch (TTransportException e) {
        throw new IllegalStateException(e); // TEndpointTransport declares it; it never throws
      }
    }

    /** Builds the transport and connects it. */
    public TNettyTransport open() throws TTransportException {
      TNettyTransport transport = build();
      transport.open();
      return transport;
    }
  }

  /** The peer's address. */
  public InetSocketAddress remoteAddress() {
    return address;
  }

  @Override
  public boolean isOpen() {
    Channel ch = channel;
    return !closed && ch != null && ch.isActive();
  }

  /**
   * Connects.
   *
   * @throws TTransportException {@code ALREADY_OPEN} if open, {@code NOT_OPEN} if closed, the
   *     connection is refused or the TLS handshake fails, {@code TIMED_OUT} if the connect timeout
   *     or the TLS handshake timeout passes
   */
  @Override
  public void open() throws TTransportException {
    if (closed) {
      throw new TTransportException(
          TTransportException.NOT_OPEN, "transport to " + address + " is closed");
    }
    if (channel != null) {
      throw new TTransportException(
          TTransportException.ALREADY_OPEN, "transport to " + address + " is already open");
    }
    channel =
        resources.connect(
            address,
            connectTimeout,
            maxFrameSize,
            new Receiver(),
            tls,
            tls != null ? NettyTls.clientContext(tls) : null);
  }

  /** Closes the connection; a blocked or later read fails. Idempotent. */
  @Override
  public void close() {
    closed = true;
    Channel ch = channel;
    if (ch != null) {
      ch.close();
    }
  }

  @Override
  public void write(byte[] buf, int off, int len) throws TTransportException {
    long size = (long) writeSize + len;
    if (size > maxFrameSize) {
      writeSize = 0;
      throw new FrameSizeException((int) Math.min(Integer.MAX_VALUE, size), maxFrameSize, address);
    }
    if (size > writeBuffer.length) {
      writeBuffer =
          Arrays.copyOf(
              writeBuffer, (int) Math.min(maxFrameSize, Math.max(size, 2L * writeBuffer.length)));
    }
    System.arraycopy(buf, off, writeBuffer, writeSize, len);
    writeSize = (int) size;
  }

  /** Sends the bytes written since the last flush as one frame. */
  @Override
  public void flush() throws TTransportException {
    Channel ch = checkOpen("flush");
    if (writeSize == 0) {
      return;
    }
    ByteBuf payload = ch.alloc().buffer(writeSize).writeBytes(writeBuffer, 0, writeSize);
    writeSize = 0;
    owed.updateAndGet(n -> n == Integer.MAX_VALUE ? n : n + 1); // before the response can arrive
    ch.writeAndFlush(payload)
        .addListener(
            (ChannelFutureListener)
                f -> {
                  if (!f.isSuccess()) {
                    writeFailure = f.cause();
                    f.channel().close();
                  }
                });
  }

  @Override
  public int read(byte[] buf, int off, int len) throws TTransportException {
    if (len == 0) {
      return 0;
    }
    if (framePos == frameEnd) {
      nextFrame();
    }
    int n = Math.min(len, frameEnd - framePos);
    System.arraycopy(frame, framePos, buf, off, n);
    consumeBuffer(n);
    return n;
  }

  @Override
  public byte[] getBuffer() {
    return frame;
  }

  @Override
  public int getBufferPosition() {
    return framePos;
  }

  @Override
  public int getBytesRemainingInBuffer() {
    return frameEnd - framePos;
  }

  @Override
  public void consumeBuffer(int len) {
    framePos += len;
    try {
      countConsumedMessageBytes(len);
    } catch (TTransportException e) {
      // Reads never pass the frame's end, and the frame set the budget: this cannot happen.
      throw new IllegalStateException(e);
    }
  }

  private Channel checkOpen(String operation) throws TTransportException {
    Channel ch = channel;
    if (closed || ch == null) {
      throw new TTransportException(
          TTransportException.NOT_OPEN,
          "cannot "
              + operation
              + ": transport to "
              + address
              + (closed ? " is closed" : " is not open"));
    }
    Throwable failed = writeFailure;
    if (failed != null) {
      close();
      throw new TTransportException(
          TTransportException.UNKNOWN, "write to " + address + " failed: " + failed, failed);
    }
    return ch;
  }

  private void nextFrame() throws TTransportException {
    checkOpen("read");
    Object event;
    try {
      event =
          readTimeoutNanos > 0
              ? inbound.poll(readTimeoutNanos, TimeUnit.NANOSECONDS)
              : inbound.take();
    } catch (InterruptedException e) {
      close(); // a response may still arrive and would be taken for the next call's
      Thread.currentThread().interrupt();
      throw new TTransportException(
          TTransportException.UNKNOWN,
          "interrupted while waiting for a response from " + address + "; transport closed",
          e);
    }
    if (event == null) {
      close();
      throw new TTransportException(
          TTransportException.TIMED_OUT,
          "no response from "
              + address
              + " within readTimeout "
              + TimeUnit.NANOSECONDS.toMillis(readTimeoutNanos)
              + " ms; transport closed");
    }
    if (event instanceof byte[]) {
      unread.decrementAndGet();
      frame = (byte[]) event;
      framePos = 0;
      frameEnd = frame.length;
      resetConsumedMessageSize(-1);
      updateKnownMessageSize(frameEnd);
      return;
    }
    inbound.offer(event); // keep the terminal event for later reads
    close();
    Throwable failed = writeFailure;
    if (failed != null) {
      throw new TTransportException(
          TTransportException.UNKNOWN, "write to " + address + " failed: " + failed, failed);
    }
    if (event instanceof ProtocolViolation) {
      throw new TTransportException(
          TTransportException.CORRUPTED_DATA, ((ProtocolViolation) event).getMessage());
    }
    if (event instanceof Throwable) {
      Throwable cause = (Throwable) event;
      throw new TTransportException(
          cause instanceof InvalidFrameException
              ? TTransportException.CORRUPTED_DATA
              : TTransportException.UNKNOWN,
          "connection to " + address + " failed: " + cause.getMessage(),
          cause);
    }
    throw new TTransportException(
        TTransportException.END_OF_FILE,
        "connection to " + address + " closed by the peer while waiting for a response");
  }

  /** Why the connection was closed under a reader: the peer sent what was not asked for. */
  private static final class ProtocolViolation extends Exception {
    private static final long serialVersionUID = 1L;

    ProtocolViolation(String message) {
      super(message, null, false, false);
    }
  }

  /** Hands response frames, as byte arrays, to the reading thread. */
  private final class Receiver extends ChannelInboundHandlerAdapter {
    private boolean violated;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf buf = (ByteBuf) msg;
      try {
        if (violated) {
          return; // closing: the frames after a violation answer nobody
        }
        String violation = null;
        if (owed.getAndUpdate(n -> n > 0 ? n - 1 : 0) == 0) {
          violation = "with no call waiting for it";
        } else if (unread.get() > 0) {
          violation = "while the previous response was still unread";
        }
        if (violation != null) {
          violated = true;
          // Frames already queued may be the peer's noise too: no read may take any of them.
          inbound.clear();
          unread.set(0);
          inbound.offer(
              new ProtocolViolation(
                  "protocol violation: a frame of "
                      + buf.readableBytes()
                      + " bytes arrived from "
                      + address
                      + " "
                      + violation
                      + "; connection closed"));
          ctx.close();
          return;
        }
        unread.incrementAndGet();
        inbound.offer(ByteBufUtil.getBytes(buf));
      } finally {
        buf.release();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      inbound.offer(cause);
      ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      inbound.offer(CLOSED);
    }
  }

  @Override
  public String toString() {
    return "TNettyTransport{" + address + (isOpen() ? ", open}" : ", closed}");
  }
}
