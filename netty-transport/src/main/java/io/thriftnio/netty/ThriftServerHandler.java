package io.thriftnio.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.thriftnio.core.CloseCause;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerInterceptor;
import io.thriftnio.core.internal.server.CallPath;
import io.thriftnio.core.internal.server.CallSequencer;
import io.thriftnio.core.internal.server.ProcessorInvoker;
import io.thriftnio.core.internal.server.RegisteredConnection;
import io.thriftnio.core.internal.server.TimeoutPolicy;
import io.thriftnio.core.util.internal.ServerCounters;
import io.thriftnio.core.wire.Envelope;
import io.thriftnio.core.wire.WireMessage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.Executor;
import org.apache.thrift.TAsyncProcessor;
import org.apache.thrift.TProcessor;
import org.apache.thrift.protocol.TProtocolFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves Thrift requests on one connection: runs the processor for each frame from a {@code
 * ThriftFrameDecoder} and writes the responses, in request order, through a {@code
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
 * <p>The processor runs on the event loop ({@link IoStrategy#SAME_THREAD}) or a worker executor
 * ({@link IoStrategy#WORKER}); responses leave in request order either way, those of one read batch
 * in one flush. The decisions (order, limits, overload, what a failure gets, what is counted) are
 * the server call path of thrift-nio's core, the same on every transport; this handler is its Netty
 * adapter.
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
 *   <li>a refused frame from the decoder (a {@code CorruptedFrameException}): if it carries the
 *       request's header, the caller gets {@code TApplicationException(PROTOCOL_ERROR)} for that
 *       sequence id after every earlier response, the output is shut down and the connection closed
 *       shortly after (so the reply is not lost to a reset); otherwise the connection is closed
 *       after the earlier responses;
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
 *   <li>Not {@code @Sharable}: it holds the connection's queue of responses; one per channel.
 *   <li>Each request is copied out of the read buffer, which goes back to the pool at once; the
 *       copy lives until its call completes. Bound the worker executor's queue (the server's own
 *       pool is bounded): a pipelining client can have many calls queued.
 *   <li>With {@code SAME_THREAD}, a handler that blocks stalls every connection of its event loop.
 *   <li>An asynchronous handler that never calls its callback, or a handler that never returns,
 *       leaves every later reply on the connection waiting behind it, and the idle timeout never
 *       closes a connection with a call in flight: complete every callback, if only with an error.
 *       {@link NettyThriftServer} bounds such a call with {@link ServerBuilder#handlerTimeout} (off
 *       by default), answering it with {@code TApplicationException(INTERNAL_ERROR)} so that the
 *       replies behind it leave; this handler in a pipeline of your own has no call timeout.
 * </ul>
 */
public final class ThriftServerHandler extends ChannelInboundHandlerAdapter {

  private static final Logger log = LoggerFactory.getLogger(ThriftServerHandler.class);

  /** How long the output stays half-closed after an error reply before the connection closes. */
  static final long LINGER_MILLIS = 1000;

  private final Settings settings;
  final ConnectionTimeouts timeouts;

  /** A response that could not be written: the connection broke (a reset) after the call began. */
  final ChannelFutureListener countDropped;

  // Confined to the channel's event loop (Netty's model): set in handlerAdded, used there. calls is
  // also read by pendingCalls() on the server's closing thread, where a handler not yet added
  // counts 0.
  ChannelHandlerContext ctx;
  CallSequencer calls;
  private NettyServerConnection connection;
  ChannelFuture lastWrite;

  /**
   * How the replies to plain {@code ByteBuf} requests leave: framed, unless the decoder found an
   * unframed peer ({@link WireMessages.WireDetected}).
   */
  private volatile Envelope envelope = Envelope.FRAMED;

  /** The envelope of the connection's plain requests, for the call context (its SASL identity). */
  Envelope connectionEnvelope() {
    return envelope;
  }

  /** The channel's registration in its server's registry; {@code null} in a user's pipeline. */
  RegisteredConnection<?> registration;

  /**
   * A handler for a pipeline of your own, after a {@link ThriftFrameCodec}: runs {@code processor}
   * on the event loop, reading and writing {@code protocol}, with frames up to 16,384,000 bytes
   * (libthrift's default). No idle or frame timeout (add Netty's {@code IdleStateHandler} if
   * needed). At most {@value ServerBuilder#DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CONNECTION} calls are in
   * flight.
   *
   * @param processor the processor, e.g. {@code new BenchService.Processor<>(handler)}
   * @param protocol the protocol of requests and replies, e.g. {@code new
   *     TBinaryProtocol.Factory()}
   */
  public ThriftServerHandler(TProcessor processor, TProtocolFactory protocol) {
    this(processor, protocol, List.of());
  }

  /**
   * As {@link #ThriftServerHandler(TProcessor, TProtocolFactory)}, with {@code interceptors} around
   * every call, first to run first (see {@link ServerInterceptor}).
   *
   * @param processor the processor
   * @param protocol the protocol of requests and replies
   * @param interceptors the interceptors; may be empty
   * @throws NullPointerException if an argument or an interceptor is {@code null}
   */
  public ThriftServerHandler(
      TProcessor processor,
      TProtocolFactory protocol,
      List<? extends ServerInterceptor> interceptors) {
    this(ProcessorInvoker.forPipeline(processor, protocol, interceptors), null);
  }

  /**
   * As {@link #ThriftServerHandler(TProcessor, TProtocolFactory)}, for an asynchronous processor,
   * which may complete its calls on any thread and in any order.
   *
   * @param processor the processor, e.g. {@code new BenchService.AsyncProcessor<>(handler)}
   * @param protocol the protocol of requests and replies
   */
  public ThriftServerHandler(TAsyncProcessor processor, TProtocolFactory protocol) {
    this(processor, protocol, List.of());
  }

  /**
   * As {@link #ThriftServerHandler(TAsyncProcessor, TProtocolFactory)}, with {@code interceptors}
   * around every call, first to run first (see {@link ServerInterceptor}).
   *
   * @param processor the processor
   * @param protocol the protocol of requests and replies
   * @param interceptors the interceptors; may be empty
   * @throws NullPointerException if an argument or an interceptor is {@code null}
   */
  public ThriftServerHandler(
      TAsyncProcessor processor,
      TProtocolFactory protocol,
      List<? extends ServerInterceptor> interceptors) {
    this(ProcessorInvoker.forPipeline(processor, protocol, interceptors), null);
  }

  /**
   * The handler the public constructors make, and tests: calls are counted, and refused calls' log
   * lines thinned out, per handler, not per server. At most {@value
   * ServerBuilder#DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CONNECTION} calls are in flight. A call {@code
   * worker} has not started within {@link ServerBuilder#DEFAULT_WORKER_START_TIMEOUT} is answered
   * as an overload.
   *
   * @param invoker runs the processor; its protocols and frame limit are used for the replies this
   *     handler writes itself
   * @param worker runs the processor for {@link IoStrategy#WORKER}; {@code null} for {@link
   *     IoStrategy#SAME_THREAD}
   */
  ThriftServerHandler(ProcessorInvoker invoker, Executor worker) {
    this(
        new Settings(
            CallPath.builder(invoker, new ServerCounters()).worker(worker).build(),
            TimeoutPolicy.off()));
  }

  ThriftServerHandler(Settings settings) {
    this.settings = settings;
    ServerCounters counters = settings.path.counters();
    this.countDropped =
        f -> {
          if (!f.isSuccess()) {
            counters.droppedResponses.increment();
          }
        };
    this.timeouts = new ConnectionTimeouts(settings.timeouts);
  }

  /** Everything a server's handlers share; immutable. */
  static final class Settings {
    final CallPath path;
    final TimeoutPolicy timeouts;

    Settings(CallPath path, TimeoutPolicy timeouts) {
      this.path = path;
      this.timeouts = timeouts;
    }
  }

  /** Called by {@link NettyThriftServer} before the channel is active. */
  void registration(RegisteredConnection<?> registration) {
    this.registration = registration;
  }

  /** Notes for the connection listeners why the server closes this channel; first note wins. */
  private void noteClose(CloseCause cause) {
    if (registration != null) {
      registration.noteClose(cause);
    }
  }

  /** Counts {@code replies} that could not be written (their connection broke). */
  void dropped(int replies) {
    settings.path.counters().droppedResponses.add(replies);
  }

  /** Calls received on this connection whose responses have not been written yet. */
  int pendingCalls() {
    return calls == null ? 0 : calls.pendingCalls();
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    this.connection = new NettyServerConnection(this);
    this.calls = settings.path.open(connection);
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    timeouts.start(ctx, new TimeoutView());
    super.channelActive(ctx);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    timeouts.stop();
    calls.onClosed(); // requests not yet dispatched are released; running calls release their own
    connection.discardBatch();
    super.channelInactive(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    byte[] request;
    Envelope replyEnvelope;
    if (msg instanceof WireMessage) {
      WireMessage<?> r = (WireMessage<?>) msg;
      request = r.array() != null ? r.array() : copyAndRelease((ByteBuf) r.payload());
      replyEnvelope = r.envelope();
    } else if (msg instanceof ByteBuf) {
      request = copyAndRelease((ByteBuf) msg);
      replyEnvelope = envelope;
    } else if (msg instanceof WireMessages) {
      onWire((WireMessages) msg);
      return;
    } else {
      ctx.fireChannelRead(msg);
      return;
    }
    timeouts.frameReceived();
    if (!calls.onRequest(ByteBuffer.wrap(request), null, replyEnvelope)) {
      updateAutoRead();
    }
  }

  /** What the decoder passed on besides a request: an envelope, an answer, a failed handshake. */
  private void onWire(WireMessages message) {
    if (message instanceof WireMessages.WireDetected detected) {
      envelope = detected.envelope();
    } else if (message instanceof WireMessages.HandshakeFailed failed) {
      calls.onHandshakeFailure(failed.answer(), failed.cause());
      updateAutoRead();
    } else if (message instanceof WireMessages.Answer answer) {
      if (answer.refusal()) {
        timeouts.frameReceived(); // a whole request, if a refused one
      }
      calls.onAnswer(answer.bytes(), answer.refusal(), answer.closeAfter());
      updateAutoRead();
    }
  }

  /**
   * The call reads a copy of its own: libthrift's array fast path then applies, a binary argument
   * the handler keeps stays valid after the call, and the pooled buffer goes back now.
   */
  private static byte[] copyAndRelease(ByteBuf payload) {
    try {
      return ByteBufUtil.getBytes(payload);
    } finally {
      payload.release();
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    calls.readComplete();
    timeouts.readBatchComplete();
    ctx.fireChannelReadComplete();
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
    timeouts.writabilityChanged(ctx.channel().isWritable());
    updateAutoRead();
    super.channelWritabilityChanged(ctx);
  }

  void updateAutoRead() {
    // Backpressure: a client that does not read its responses stops being read from, and so does
    // one that pipelines more than maxCallsInFlight requests, until calls are answered.
    ctx.channel().config().setAutoRead(ctx.channel().isWritable() && !calls.isReadingPaused());
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    InvalidFrameException invalid = findCause(cause, InvalidFrameException.class);
    if (invalid != null) {
      calls.onBadFrame(invalid.header(), invalid.getCause().getMessage(), Envelope.FRAMED);
      updateAutoRead();
      return;
    }
    InvalidMessageException refused = findCause(cause, InvalidMessageException.class);
    if (refused != null) {
      calls.onBadFrame(refused.header(), refused.getMessage(), refused.envelope());
      updateAutoRead();
      return;
    }
    if (cause instanceof IOException) {
      // The peer's doing (a reset, a broken pipe): PEER_CLOSED, as on Grizzly, which reports a
      // reset as an end of stream.
      log.debug("Connection from {} failed; closing", ctx.channel().remoteAddress(), cause);
    } else {
      noteClose(CloseCause.ERROR);
      log.warn(
          "Unexpected failure on connection from {}; closing",
          ctx.channel().remoteAddress(),
          cause);
    }
    ctx.close();
  }

  private static <T extends Throwable> T findCause(Throwable cause, Class<T> type) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }

  /**
   * Drains: calls received are answered, calls that arrive are refused as not run, and the
   * connection closes once quiet ({@link CallSequencer#startDrain}). Runs on the event loop.
   */
  void startDrain(ChannelHandlerContext ctx) {
    calls.startDrain();
    updateAutoRead();
  }

  /** This connection as the timeouts see it. */
  private final class TimeoutView implements ConnectionTimeouts.Connection {
    @Override
    public int pendingCalls() {
      return calls.pendingCalls();
    }

    @Override
    public boolean isClosing() {
      return calls.isClosing();
    }

    @Override
    public void aged() {
      calls.markAged();
    }

    @Override
    public void timedOut(TimeoutPolicy.Verdict verdict) {
      noteClose(verdict.kind().closeCause());
      TimeoutPolicy.reportTimedOut(
          verdict, ctx.channel().remoteAddress(), settings.path.counters());
      calls.onClosed();
      boolean aged = verdict.kind() == TimeoutPolicy.Kind.AGED;
      if (aged) {
        connection.flush(); // batched replies first: lastWrite is then the last
      }
      if (aged && lastWrite != null && !lastWrite.isDone()) {
        lastWrite.addListener(ChannelFutureListener.CLOSE); // idle, but its last reply is not out
      } else {
        ctx.close();
      }
    }
  }
}
