package io.thriftnio.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import io.thriftnio.core.FrameSizeException;
import io.thriftnio.core.Framing;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.TooManyPendingCallsException;
import io.thriftnio.core.internal.Checks;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.netty.internal.NettyTls;
import org.apache.thrift.transport.TTransportException;

/**
 * An asynchronous, pipelined {@link ThriftChannel} over one Netty connection.
 *
 * <pre>{@code
 * NettyThriftChannel channel = NettyThriftChannel.builder(address)
 *     .resources(resources)
 *     .callbackExecutor(executor)
 *     .connect();
 * BenchService.AsyncIface client = AsyncClients.asyncIface(BenchService.AsyncIface.class,
 *     channel, BenchService.Client::new, new TBinaryProtocol.Factory(), executor);
 * }</pre>
 *
 * <pre>
 *  exchange(a) exchange(b) send(c, oneway) exchange(d)
 *     -&gt; [a][b][c][d] on the wire, in call order      pending: a, b, d
 *     &lt;- [A][B][D]    responses, in the same order    A completes a, B b, D d
 * </pre>
 *
 * <p>Many calls may be in flight; responses are matched first-in, first-out, which is the order
 * every Thrift server answers one connection in. A oneway message ({@link #send(ByteBuffer)})
 * expects no response and completes once written. Requests written by one event loop turn leave in
 * one flush.
 *
 * <p>A request that is empty or larger than {@code maxFrameSize} fails alone with a {@link
 * FrameSizeException}, before anything is written; the channel stays usable.
 *
 * <p>Each call has a timeout (the channel's default, or the one given to {@link
 * #exchange(ByteBuffer, Duration)}). A call that times out fails with {@code TIMED_OUT} and closes
 * the channel, because its late response would be matched to the next call. When the connection
 * closes, for any reason, every pending call fails with a {@link TTransportException} naming the
 * peer, the number of calls pending and the reason. At most {@code maxPendingCalls} calls wait
 * for responses: one more fails at once with a {@link TooManyPendingCallsException}, and the
 * channel stays usable. Futures complete on the callback executor,
 * never on the event loop (unless the executor refuses the task). Thread-safe.
 */
public final class NettyThriftChannel implements ThriftChannel {

  private static final long CLOSE_WAIT_MILLIS = 3000;

  private final InetSocketAddress address;
  private final Duration defaultTimeout;
  private final Executor callbackExecutor;
  private final int maxFrameSize;
  private final int maxPendingCalls;
  private final AtomicInteger pending = new AtomicInteger();
  private final Connection connection = new Connection();
  private Channel channel;

  private NettyThriftChannel(Builder b) {
    this.address = b.address;
    this.defaultTimeout = b.requestTimeout;
    this.callbackExecutor = b.callbackExecutor;
    this.maxFrameSize = b.maxFrameSize;
    this.maxPendingCalls = b.maxPendingCalls;
  }

  /** A builder for a channel to {@code address}. */
  public static Builder builder(InetSocketAddress address) {
    return new Builder(address);
  }

  /** Builds and connects a {@link NettyThriftChannel}. */
  public static final class Builder {
    private final InetSocketAddress address;
    private NettyClientResources resources;
    private Duration connectTimeout = Duration.ofSeconds(10);
    private Duration requestTimeout = Duration.ofSeconds(30);
    private int maxFrameSize = Framing.DEFAULT_MAX_FRAME_SIZE;
    private int maxPendingCalls = ThriftChannel.DEFAULT_MAX_PENDING_CALLS;
    private Executor callbackExecutor = ForkJoinPool.commonPool();
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
     * Time allowed for a call from {@link ThriftChannel#exchange(ByteBuffer)} until its whole
     * response has arrived. Default: 30 seconds.
     */
    public Builder requestTimeout(Duration requestTimeout) {
      this.requestTimeout = requestTimeout;
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
     * The most calls that may wait for their responses at once, in calls. One more fails at once
     * with a {@link TooManyPendingCallsException} (nothing is sent; the channel stays usable).
     * Oneway messages do not count. Default: {@value ThriftChannel#DEFAULT_MAX_PENDING_CALLS}.
     */
    public Builder maxPendingCalls(int maxPendingCalls) {
      this.maxPendingCalls = maxPendingCalls;
      return this;
    }

    /**
     * Completes the futures, so that callbacks never run on (and never block) the event loop.
     * Default: {@link ForkJoinPool#commonPool()}.
     */
    public Builder callbackExecutor(Executor callbackExecutor) {
      this.callbackExecutor = callbackExecutor;
      return this;
    }

    /**
     * Speaks TLS: {@link #connect()} returns once the handshake has completed, and fails with a
     * {@link TTransportException} naming the peer if it fails ({@code NOT_OPEN}) or times out
     * ({@code TIMED_OUT}). Default: {@code null}, plain TCP.
     *
     * @param tls the TLS settings, or {@code null} for plain TCP
     * @return this builder
     */
    public Builder tls(ClientTls tls) {
      this.tls = tls;
      return this;
    }

    /**
     * Validates the settings and connects.
     *
     * @throws IllegalArgumentException if a value is out of range
     * @throws IllegalStateException if TLS asks for OPENSSL and netty-tcnative is not available
     * @throws TTransportException if the connection or the TLS handshake cannot be completed
     */
    public NettyThriftChannel connect() throws TTransportException {
      Checks.notNull("address", address);
      Checks.positive("connectTimeout", connectTimeout);
      Checks.positive("requestTimeout", requestTimeout);
      Checks.notNull("callbackExecutor", callbackExecutor);
      Framing.checkMaxFrameSize(maxFrameSize);
      Checks.positive("maxPendingCalls", maxPendingCalls);
      NettyClientResources r = resources != null ? resources : NettyClientResources.shared();
      NettyThriftChannel ch = new NettyThriftChannel(this);
      ch.channel =
          r.connect(
              address,
              connectTimeout,
              maxFrameSize,
              ch.connection,
              tls,
              tls != null ? NettyTls.clientContext(tls) : null);
      return ch;
    }
  }

  /** One call waiting for its response. Event-loop confined except for {@link #result}. */
  private static final class Call {
    final CompletableFuture<ByteBuffer> result = new CompletableFuture<>();
    final long timeoutNanos;
    ScheduledFuture<?> timer;

    Call(long timeoutNanos) {
      this.timeoutNanos = timeoutNanos;
    }
  }

  @Override
  public CompletableFuture<ByteBuffer> exchange(ByteBuffer request) {
    return exchange(request, defaultTimeout);
  }

  @Override
  public CompletableFuture<ByteBuffer> exchange(ByteBuffer request, Duration timeout) {
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException("timeout: " + timeout + " (expected: > 0)"));
    }
    FrameSizeException tooLarge = checkSize(request);
    if (tooLarge != null) {
      return CompletableFuture.failedFuture(tooLarge);
    }
    int waiting;
    do {
      waiting = pending.get();
      if (waiting >= maxPendingCalls) {
        return CompletableFuture.failedFuture(
            new TooManyPendingCallsException(waiting, maxPendingCalls, address));
      }
    } while (!pending.compareAndSet(waiting, waiting + 1));
    Call call = new Call(timeout.toNanos());
    ByteBuf payload = Unpooled.wrappedBuffer(request.duplicate());
    EventLoop loop = channel.eventLoop();
    try {
      loop.execute(() -> connection.writeCall(call, payload));
    } catch (RejectedExecutionException e) {
      payload.release();
      pending.decrementAndGet();
      call.result.completeExceptionally(closedException("its event loop was shut down"));
    }
    return call.result;
  }

  @Override
  public CompletableFuture<Void> send(ByteBuffer request) {
    FrameSizeException tooLarge = checkSize(request);
    if (tooLarge != null) {
      return CompletableFuture.failedFuture(tooLarge);
    }
    CompletableFuture<Void> result = new CompletableFuture<>();
    ByteBuf payload = Unpooled.wrappedBuffer(request.duplicate());
    try {
      channel.eventLoop().execute(() -> connection.writeOneway(payload, result));
    } catch (RejectedExecutionException e) {
      payload.release();
      result.completeExceptionally(closedException("its event loop was shut down"));
    }
    return result;
  }

  /** A request the peer would reject fails alone; the channel stays usable. */
  private FrameSizeException checkSize(ByteBuffer request) {
    try {
      Framing.checkLength(request.remaining(), maxFrameSize, address);
      return null;
    } catch (FrameSizeException e) {
      return e;
    }
  }

  @Override
  public int pendingCalls() {
    return pending.get();
  }

  @Override
  public boolean isOpen() {
    return channel.isActive();
  }

  @Override
  public SocketAddress remoteAddress() {
    return address;
  }

  /**
   * Closes the connection; every pending call fails. Idempotent. Returns once the connection is
   * closed (or after a few seconds at most).
   */
  @Override
  public void close() {
    EventLoop loop = channel.eventLoop();
    if (loop.inEventLoop()) {
      connection.closeWith("the channel was closed");
      return;
    }
    try {
      loop.execute(() -> connection.closeWith("the channel was closed"));
    } catch (RejectedExecutionException loopGone) {
      channel.close(); // the event loops were shut down: the connection is closed or closing
    }
    channel.closeFuture().awaitUninterruptibly(CLOSE_WAIT_MILLIS);
  }

  private TTransportException closedException(String why) {
    return new TTransportException(
        TTransportException.NOT_OPEN, "channel to " + address + " is closed: " + why);
  }

  private <T> void completeOnExecutor(CompletableFuture<T> future, T value, Throwable failure) {
    Runnable task =
        failure == null
            ? () -> future.complete(value)
            : () -> future.completeExceptionally(failure);
    try {
      callbackExecutor.execute(task);
    } catch (RejectedExecutionException e) {
      task.run(); // a caller's executor that is shut down must not leave the future hanging
    }
  }

  /** The pipeline end of the connection; all its state is confined to the event loop. */
  private final class Connection extends ChannelInboundHandlerAdapter {
    private final ArrayDeque<Call> calls = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private String closeReason;
    private Throwable closeCause;
    private boolean flushScheduled;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      this.ctx = ctx;
    }

    void writeCall(Call call, ByteBuf payload) {
      if (closeReason != null || !ctx.channel().isActive()) {
        payload.release();
        pending.decrementAndGet();
        fail(
            call,
            closedException(closeReason != null ? closeReason : "the connection is not open"));
        return;
      }
      calls.add(call);
      ctx.write(payload)
          .addListener(
              (ChannelFutureListener)
                  f -> {
                    if (!f.isSuccess()) {
                      closeWith("a write failed: " + f.cause(), f.cause());
                    }
                  });
      call.timer =
          ctx.executor().schedule(() -> timeOut(call), call.timeoutNanos, TimeUnit.NANOSECONDS);
      scheduleFlush();
    }

    void writeOneway(ByteBuf payload, CompletableFuture<Void> result) {
      if (closeReason != null || !ctx.channel().isActive()) {
        payload.release();
        completeOnExecutor(
            result,
            null,
            closedException(closeReason != null ? closeReason : "the connection is not open"));
        return;
      }
      ctx.write(payload)
          .addListener(
              (ChannelFutureListener)
                  f -> {
                    if (f.isSuccess()) {
                      completeOnExecutor(result, null, null);
                    } else {
                      completeOnExecutor(
                          result,
                          null,
                          new TTransportException(
                              TTransportException.UNKNOWN,
                              "oneway write to " + address + " failed: " + f.cause(),
                              f.cause()));
                      closeWith("a write failed: " + f.cause(), f.cause());
                    }
                  });
      scheduleFlush();
    }

    private void scheduleFlush() {
      if (flushScheduled) {
        return;
      }
      flushScheduled = true;
      ctx.executor()
          .execute(
              () -> {
                flushScheduled = false;
                ctx.flush();
              });
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf frame = (ByteBuf) msg;
      ByteBuffer response;
      try {
        response = ByteBuffer.wrap(ByteBufUtil.getBytes(frame));
      } finally {
        frame.release();
      }
      Call call = calls.poll();
      if (call == null) {
        closeWith("a response arrived with no call pending (is the peer a Thrift server?)");
        return;
      }
      call.timer.cancel(false);
      pending.decrementAndGet();
      completeOnExecutor(call.result, response, null);
    }

    private void timeOut(Call call) {
      if (call.result.isDone() || !calls.contains(call)) {
        return;
      }
      int before = calls.size();
      calls.remove(call);
      pending.decrementAndGet();
      // Close first: whoever sees the failure sees a closed channel.
      closeWith(
          "a call timed out after " + TimeUnit.NANOSECONDS.toMillis(call.timeoutNanos) + " ms");
      completeOnExecutor(
          call.result,
          null,
          new TTransportException(
              TTransportException.TIMED_OUT,
              "call to "
                  + address
                  + " timed out after "
                  + TimeUnit.NANOSECONDS.toMillis(call.timeoutNanos)
                  + " ms ("
                  + before
                  + " calls were pending); channel closed"));
    }

    void closeWith(String reason) {
      closeWith(reason, null);
    }

    void closeWith(String reason, Throwable cause) {
      if (closeReason == null) {
        closeReason = reason;
        closeCause = cause;
      }
      ctx.close(); // first, so that a failed call never sees the channel still open
      failAll();
    }

    private void failAll() {
      int count = calls.size();
      if (count == 0) {
        return;
      }
      String why = closeReason != null ? closeReason : "closed by the peer";
      Call call;
      while ((call = calls.poll()) != null) {
        if (call.timer != null) {
          call.timer.cancel(false);
        }
        pending.decrementAndGet();
        fail(
            call,
            new TTransportException(
                TTransportException.END_OF_FILE,
                "connection to " + address + " closed with " + count + " calls pending: " + why,
                closeCause));
      }
    }

    private void fail(Call call, TTransportException e) {
      completeOnExecutor(call.result, null, e);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      String what =
          cause instanceof IOException
              ? cause.toString()
              : cause instanceof InvalidFrameException
                  ? "invalid response frame: " + cause.getMessage()
                  : "unexpected " + cause;
      closeWith(what, cause);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
      if (closeReason == null) {
        closeReason = "closed by the peer";
      }
      failAll();
      super.channelInactive(ctx);
    }
  }

  @Override
  public String toString() {
    return "NettyThriftChannel{"
        + address
        + ", pending="
        + pending.get()
        + (isOpen() ? "}" : ", closed}");
  }
}
