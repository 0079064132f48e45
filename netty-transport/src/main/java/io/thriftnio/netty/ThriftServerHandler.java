package io.thriftnio.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.thriftnio.core.Framing;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ProcessorInvoker;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.internal.ServerCounters;
import io.thriftnio.core.internal.EveryPowerOfTwo;
import io.thriftnio.netty.internal.Replies;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TProtocolFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves Thrift requests on one connection: runs the processor for each frame from a {@link
 * ThriftFrameDecoder} and writes the responses, in request order, through a {@link
 * ThriftFrameEncoder}.
 *
 * <pre>
 *  socket -&gt; ThriftFrameDecoder -&gt; ThriftServerHandler -&gt; ProcessorInvoker
 *                                          |  (IO thread, or a worker executor)
 *  socket &lt;- ThriftFrameEncoder &lt;-  responses in request order  &lt;-+
 *
 *  requests:   [ seq 1 ][ seq 2 ][ seq 3 ]          (one read)
 *  completed:            seq 2, seq 3, seq 1        (workers finish out of order)
 *  written:    [ seq 1 ][ seq 2 ][ seq 3 ]          (held back until seq 1 is done; one flush)
 * </pre>
 *
 * <p>Where the processor runs is the {@link IoStrategy}: on the event loop that read the frame
 * ({@code worker == null}, {@link IoStrategy#SAME_THREAD}), or on a worker executor ({@link
 * IoStrategy#WORKER}). Either way, and with an asynchronous processor that completes whenever it
 * likes, responses leave in request order, so pipelining clients match them first-in, first-out.
 * Responses produced while one read batch is handled leave in a single flush, at {@code
 * channelReadComplete}; responses completed later are flushed together once the event loop has run
 * every completion already queued.
 *
 * <p>Failures:
 *
 * <ul>
 *   <li>a handler that throws an undeclared exception: the caller gets {@code
 *       TApplicationException(INTERNAL_ERROR)}; the connection stays usable;
 *   <li>a worker executor that refuses the task (queue full): the caller gets {@code
 *       TApplicationException(INTERNAL_ERROR)} saying the server is overloaded, with the pool's
 *       numbers; the connection stays usable. The 1st, 2nd, 4th, 8th ... refusal of the server is
 *       logged at WARN with the running count, so that an overload does not flood the log;
 *   <li>an {@link InvalidFrameException} from the decoder: if it carries the request's header, the
 *       caller gets {@code TApplicationException(PROTOCOL_ERROR)} for that sequence id after every
 *       earlier response, the output is shut down and the connection closed shortly after (so the
 *       reply is not lost to a reset); otherwise the connection is closed after the earlier
 *       responses;
 *   <li>a frame whose message header cannot be read: the connection is closed after the earlier
 *       responses (there is no sequence id to answer);
 *   <li>a client that pipelines more than {@code maxCallsInFlightPerConnection} calls: the requests
 *       beyond it wait, undispatched, and the connection is not read from until calls complete;
 *   <li>a client that leaves while its call runs: the response is dropped quietly and counted in
 *       {@code droppedResponses}.
 * </ul>
 *
 * <h2>Pitfalls</h2>
 *
 * <ul>
 *   <li>Not {@code @Sharable}: it holds the connection's queue of responses. Create one per
 *       channel.
 *   <li>The protocol factories given here are used only for the error replies this handler writes
 *       itself; they must be the ones the {@link ProcessorInvoker} uses, or clients receive replies
 *       they cannot read.
 *   <li>A request's frame buffer is held until its call completes. With a worker executor and a
 *       pipelining client, many frames may be held at once; bound the executor's queue (the
 *       server's own pool is bounded) rather than letting it queue without limit.
 *   <li>With {@code SAME_THREAD}, a handler that blocks stalls every connection of its event loop.
 *   <li>A request's frame is released when its call completes, never before: the processor may read
 *       it until then, even after the connection has closed. An asynchronous handler that drops its
 *       callback without calling it holds that frame forever (Netty's leak detector reports it);
 *       complete every callback, if only with an error.
 * </ul>
 */
public final class ThriftServerHandler extends ChannelInboundHandlerAdapter {

  private static final Logger log = LoggerFactory.getLogger(ThriftServerHandler.class);

  /** How long the output stays half-closed after an error reply before the connection closes. */
  static final long LINGER_MILLIS = 1000;

  private final Settings settings;

  private final ArrayDeque<Slot> slots = new ArrayDeque<>();
  /** Requests received while maxCallsInFlight calls were in flight, not yet dispatched. */
  private final ArrayDeque<Slot> waiting = new ArrayDeque<>();
  /** A response that could not be written: the connection broke (a reset) after the call began. */
  private final ChannelFutureListener countDropped;
  private final ConnectionTimeouts timeouts;
  private ChannelHandlerContext ctx;
  private boolean inReadBatch;
  private boolean flushAtReadComplete;
  private boolean flushScheduled;
  private boolean draining;
  private boolean dispatchingWaiting;
  private boolean closing;
  private ChannelFuture lastWrite;

  /**
   * A handler for a pipeline of your own, after a {@link ThriftFrameDecoder} and a {@link
   * ThriftFrameEncoder}. No idle or frame timeout (add Netty's {@code IdleStateHandler} if needed).
   * Refused calls are counted, and their log lines thinned out, per handler, not per server. At
   * most {@value ServerBuilder#DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CONNECTION} calls are in flight.
   *
   * @param invoker runs the processor
   * @param inputProtocolFactory the requests' protocol, as given to the invoker
   * @param outputProtocolFactory the responses' protocol, as given to the invoker
   * @param worker runs the processor for {@link IoStrategy#WORKER}; {@code null} for {@link
   *     IoStrategy#SAME_THREAD}
   */
  public ThriftServerHandler(
      ProcessorInvoker invoker,
      TProtocolFactory inputProtocolFactory,
      TProtocolFactory outputProtocolFactory,
      Executor worker) {
    this(
        new Settings(
            Objects.requireNonNull(invoker, "invoker"),
            Objects.requireNonNull(inputProtocolFactory, "inputProtocolFactory"),
            Objects.requireNonNull(outputProtocolFactory, "outputProtocolFactory"),
            Framing.DEFAULT_MAX_FRAME_SIZE,
            worker,
            new ServerCounters(),
            0,
            0));
  }

  ThriftServerHandler(Settings settings) {
    this.settings = settings;
    this.countDropped =
        f -> {
          if (!f.isSuccess()) {
            settings.counters.droppedResponses.increment();
          }
        };
    this.timeouts = new ConnectionTimeouts(settings.idleTimeoutNanos, settings.frameTimeoutNanos);
  }

  /** Everything a server's handlers share; immutable. */
  static final class Settings {
    final ProcessorInvoker invoker;
    final TProtocolFactory input;
    final TProtocolFactory output;
    final int maxFrameSize;
    final Executor worker;
    final ServerCounters counters;
    final long idleTimeoutNanos;
    final long frameTimeoutNanos;
    final int maxCallsInFlight;
    /** Which refused calls are logged; one per server, like the settings. */
    final EveryPowerOfTwo overloadLog = new EveryPowerOfTwo();

    Settings(
        ProcessorInvoker invoker,
        TProtocolFactory input,
        TProtocolFactory output,
        int maxFrameSize,
        Executor worker,
        ServerCounters counters,
        long idleTimeoutNanos,
        long frameTimeoutNanos) {
      this(
          invoker,
          input,
          output,
          maxFrameSize,
          worker,
          counters,
          idleTimeoutNanos,
          frameTimeoutNanos,
          ServerBuilder.DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CONNECTION);
    }

    Settings(
        ProcessorInvoker invoker,
        TProtocolFactory input,
        TProtocolFactory output,
        int maxFrameSize,
        Executor worker,
        ServerCounters counters,
        long idleTimeoutNanos,
        long frameTimeoutNanos,
        int maxCallsInFlight) {
      this.maxCallsInFlight = maxCallsInFlight;
      this.invoker = invoker;
      this.input = input;
      this.output = output;
      this.maxFrameSize = maxFrameSize;
      this.worker = worker;
      this.counters = counters;
      this.idleTimeoutNanos = idleTimeoutNanos;
      this.frameTimeoutNanos = frameTimeoutNanos;
    }
  }

  /** One request in the connection's response order. */
  private static final class Slot {
    ByteBuf request;
    ByteBuffer response;
    boolean done;
    boolean closeAfter;

    Slot(ByteBuf request) {
      this.request = request;
    }
  }

  /** Calls received on this connection whose responses have not been written yet. */
  int pendingCalls() {
    return slots.size();
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    this.ctx = ctx;
    timeouts.start(ctx, new TimeoutView());
    super.channelActive(ctx);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    timeouts.stop();
    releaseWaiting(); // nobody is left to answer
    // Calls still running complete later and find the channel closed; their frames are released
    // when they complete. Slots that are done but unwritten hold nothing to release.
    super.channelInactive(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf)) {
      ctx.fireChannelRead(msg);
      return;
    }
    ByteBuf frame = (ByteBuf) msg;
    if (closing) {
      frame.release(); // after a bad frame or during close: nothing more is served
      return;
    }
    inReadBatch = true;
    timeouts.frameReceived();
    Slot slot = new Slot(frame);
    slots.add(slot);
    if (!waiting.isEmpty() || slots.size() > settings.maxCallsInFlight) {
      // The frames of this read batch are in memory already; no more are read until calls finish.
      waiting.add(slot);
      updateAutoRead(ctx);
      return;
    }
    dispatch(ctx, slot);
  }

  /** Dispatches waiting requests while fewer than maxCallsInFlight calls are in flight. */
  private void dispatchWaiting(ChannelHandlerContext ctx) {
    if (waiting.isEmpty() || dispatchingWaiting) {
      return; // a call completing inline (a refusal, say) leaves the loop below to go on
    }
    dispatchingWaiting = true;
    try {
      while (!waiting.isEmpty() && slots.size() - waiting.size() < settings.maxCallsInFlight) {
        dispatch(ctx, waiting.poll());
      }
    } finally {
      dispatchingWaiting = false;
    }
    if (waiting.isEmpty()) {
      updateAutoRead(ctx);
    }
  }

  /** Releases the frames of requests that will never be dispatched: the connection is ending. */
  private void releaseWaiting() {
    for (Slot slot : waiting) {
      slot.done = true;
      slot.request.release();
      slot.request = null;
    }
    waiting.clear();
  }

  private void dispatch(ChannelHandlerContext ctx, Slot slot) {
    ByteBuffer payload = slot.request.nioBuffer();
    Executor worker = settings.worker;
    if (worker == null) {
      invoke(ctx, slot, payload);
      return;
    }
    try {
      worker.execute(new WorkerTask(ctx, slot, payload));
    } catch (RejectedExecutionException e) {
      refuseOverloaded(ctx, slot, payload, e);
    }
  }

  /**
   * A request waiting for a worker. If the server's own pool is shut down before running it, {@link
   * #abandon()} releases the request's frame, which no call will ever release.
   */
  final class WorkerTask implements Runnable {
    private final ChannelHandlerContext ctx;
    private final Slot slot;
    private final ByteBuffer payload;

    WorkerTask(ChannelHandlerContext ctx, Slot slot, ByteBuffer payload) {
      this.ctx = ctx;
      this.slot = slot;
      this.payload = payload;
    }

    @Override
    public void run() {
      invoke(ctx, slot, payload);
    }

    /** The task will never run: release its frame. */
    void abandon() {
      ByteBuf request = slot.request;
      slot.request = null;
      if (request != null) {
        request.release();
      }
    }
  }

  private void invoke(ChannelHandlerContext ctx, Slot slot, ByteBuffer payload) {
    CompletableFuture<ByteBuffer> response;
    try {
      response = settings.invoker.invoke(payload);
    } catch (Throwable t) {
      response = CompletableFuture.failedFuture(t); // the invoker promises not to throw
    }
    response.whenComplete(
        (frame, failure) -> {
          if (ctx.executor().inEventLoop()) {
            complete(ctx, slot, frame, failure, true);
          } else {
            try {
              ctx.executor().execute(() -> complete(ctx, slot, frame, failure, true));
            } catch (RejectedExecutionException loopShutDown) {
              slot.request.release(); // the event loop is gone with its connections
            }
          }
        });
  }

  private void refuseOverloaded(
      ChannelHandlerContext ctx, Slot slot, ByteBuffer payload, RejectedExecutionException e) {
    settings.counters.overloadedCalls.increment();
    long refused = settings.overloadLog.record();
    TMessage header = Replies.readHeader(payload, settings.input, settings.maxFrameSize);
    if (header == null) {
      complete(ctx, slot, null, e, false);
      return;
    }
    String message =
        "server overloaded: "
            + header.name
            + " refused, the worker executor is full ("
            + overloadDetail()
            + ")";
    if (refused != 0) { // the 1st, 2nd, 4th, 8th ...: under overload, every call would log
      log.warn(
          "{} for {} seqid {} from {} ({} calls refused so far)",
          message,
          header.name,
          header.seqid,
          ctx.channel().remoteAddress(),
          refused);
    }
    ByteBuffer reply =
        Replies.applicationException(
            header,
            TApplicationException.INTERNAL_ERROR,
            message,
            settings.output,
            settings.maxFrameSize);
    complete(ctx, slot, reply, null, false);
  }

  private String overloadDetail() {
    Executor worker = settings.worker;
    if (worker instanceof ThreadPoolExecutor) {
      ThreadPoolExecutor pool = (ThreadPoolExecutor) worker;
      int queued = pool.getQueue().size();
      return "active="
          + pool.getActiveCount()
          + "/"
          + pool.getMaximumPoolSize()
          + ", queued="
          + queued
          + "/"
          + (queued + pool.getQueue().remainingCapacity());
    }
    return "executor " + worker;
  }

  /** On the event loop: records a call's outcome and writes every response now in order. */
  private void complete(
      ChannelHandlerContext ctx,
      Slot slot,
      ByteBuffer response,
      Throwable failure,
      boolean processed) {
    slot.done = true;
    ByteBuf request = slot.request;
    slot.request = null;
    if (failure != null) {
      settings.counters.badFrames.increment();
      log.warn(
          "Closing connection from {}: request message header unreadable ({})",
          ctx.channel().remoteAddress(),
          failure.toString());
      slot.closeAfter = true;
    } else {
      if (processed) {
        settings.counters.completedCalls.increment();
      }
      if (response != null
          && processed
          && Replies.isException(response, settings.output, settings.maxFrameSize)) {
        settings.counters.failedCalls.increment();
      }
      slot.response = response;
    }
    // Release only now: an invoker answering a failure re-reads the request's header.
    request.release();
    writeReadySlots(ctx);
    if (!closing && ctx.channel().isActive()) {
      dispatchWaiting(ctx);
    }
  }

  private void writeReadySlots(ChannelHandlerContext ctx) {
    boolean wrote = false;
    while (!slots.isEmpty() && slots.peekFirst().done) {
      Slot slot = slots.pollFirst();
      if (!ctx.channel().isActive()) {
        if (slot.response != null) {
          settings.counters.droppedResponses.increment(); // the peer left during the call
        }
        continue;
      }
      if (slot.response != null) {
        ByteBuf payload = Unpooled.wrappedBuffer(slot.response).skipBytes(Framing.HEADER_SIZE);
        lastWrite = ctx.write(payload).addListener(countDropped);
        wrote = true;
      }
      if (slot.closeAfter) {
        closeAfterWrites(ctx, slot.response != null);
        releaseRemaining();
        return;
      }
    }
    if (slots.isEmpty()) {
      timeouts.allCallsAnswered();
    }
    if (wrote) {
      if (inReadBatch) {
        flushAtReadComplete = true;
      } else {
        scheduleFlush(ctx);
      }
    }
    if (draining && slots.isEmpty() && !closing) {
      closing = true;
      ctx.flush();
      closeAfterLastWrite(ctx);
    }
  }

  private void scheduleFlush(ChannelHandlerContext ctx) {
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

  private void closeAfterWrites(ChannelHandlerContext ctx, boolean replied) {
    closing = true;
    ctx.flush();
    if (!replied || !(ctx.channel() instanceof DuplexChannel)) {
      closeAfterLastWrite(ctx);
      return;
    }
    // Half-close, keep reading (and discarding) for a moment, then close: closing with unread
    // input would send a reset, which can destroy the error reply before the peer reads it.
    lastWrite.addListener(
        (ChannelFutureListener)
            f -> {
              if (!f.isSuccess()) {
                ctx.close();
                return;
              }
              ((DuplexChannel) ctx.channel()).shutdownOutput();
              ctx.executor().schedule(() -> ctx.close(), LINGER_MILLIS, TimeUnit.MILLISECONDS);
            });
  }

  private void closeAfterLastWrite(ChannelHandlerContext ctx) {
    if (lastWrite == null || lastWrite.isDone()) {
      ctx.close();
    } else {
      lastWrite.addListener(ChannelFutureListener.CLOSE);
    }
  }

  /**
   * Slots after a closing one are never answered; their calls release their own frames, and the
   * frames of requests still waiting are released here.
   */
  private void releaseRemaining() {
    releaseWaiting();
    slots.clear();
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    inReadBatch = false;
    if (flushAtReadComplete) {
      flushAtReadComplete = false;
      ctx.flush();
    }
    timeouts.readBatchComplete();
    ctx.fireChannelReadComplete();
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
    timeouts.writabilityChanged(ctx.channel().isWritable());
    updateAutoRead(ctx);
    super.channelWritabilityChanged(ctx);
  }

  private void updateAutoRead(ChannelHandlerContext ctx) {
    // Backpressure: a client that does not read its responses stops being read from.
    // and a client that pipelines more than maxCallsInFlight requests waits for answers.
    ctx.channel().config().setAutoRead(ctx.channel().isWritable() && !draining && waiting.isEmpty());
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    InvalidFrameException invalid = findInvalidFrame(cause);
    if (invalid != null) {
      onInvalidFrame(ctx, invalid);
      return;
    }
    if (cause instanceof IOException) {
      log.debug("Connection from {} failed; closing", ctx.channel().remoteAddress(), cause);
    } else {
      log.warn(
          "Unexpected failure on connection from {}; closing",
          ctx.channel().remoteAddress(),
          cause);
    }
    closing = true;
    ctx.close();
  }

  private static InvalidFrameException findInvalidFrame(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof InvalidFrameException) {
        return (InvalidFrameException) t;
      }
    }
    return null;
  }

  private void onInvalidFrame(ChannelHandlerContext ctx, InvalidFrameException invalid) {
    if (closing) {
      return;
    }
    settings.counters.badFrames.increment();
    TMessage header = invalid.header();
    ByteBuffer reply =
        header == null
            ? null
            : Replies.applicationException(
                header,
                TApplicationException.PROTOCOL_ERROR,
                "request " + header.name + " rejected: " + invalid.getCause().getMessage(),
                settings.output,
                settings.maxFrameSize);
    if (reply != null) {
      settings.counters.failedCalls.increment();
    }
    Slot slot = new Slot(null);
    slot.done = true;
    slot.response = reply;
    slot.closeAfter = true;
    slots.add(slot);
    writeReadySlots(ctx);
  }

  /**
   * Stops reading and closes the connection once every call received has been answered. Runs on the
   * event loop.
   */
  void startDrain(ChannelHandlerContext ctx) {
    if (draining) {
      return;
    }
    draining = true;
    updateAutoRead(ctx);
    if (!closing && slots.isEmpty()) {
      closing = true;
      ctx.flush();
      closeAfterLastWrite(ctx);
    }
  }

  /** This connection as the timeouts see it. */
  private final class TimeoutView implements ConnectionTimeouts.Connection {
    @Override
    public boolean hasCallsInFlight() {
      return !slots.isEmpty();
    }

    @Override
    public boolean isClosing() {
      return closing;
    }

    @Override
    public void timedOut(String why) {
      settings.counters.timedOutConnections.increment();
      log.info("Closing connection from {}: {}", ctx.channel().remoteAddress(), why);
      closing = true;
      ctx.close();
    }
  }
}
