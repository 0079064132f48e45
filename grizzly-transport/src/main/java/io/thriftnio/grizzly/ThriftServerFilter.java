package io.thriftnio.grizzly;

import io.thriftnio.core.FrameSizeException;
import io.thriftnio.core.Framing;
import io.thriftnio.core.ProcessorInvoker;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.internal.ServerCounters;
import io.thriftnio.core.internal.server.CallPath;
import io.thriftnio.core.internal.server.CallSequencer;
import io.thriftnio.core.internal.server.ServerConnection;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.thrift.TAsyncProcessor;
import org.apache.thrift.TProcessor;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TProtocolFactory;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.CompletionHandler;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.EmptyCompletionHandler;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.WriteHandler;
import org.glassfish.grizzly.WriteResult;
import org.glassfish.grizzly.attributes.Attribute;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.CompositeBuffer;
import org.glassfish.grizzly.memory.MemoryManager;
import org.glassfish.grizzly.nio.NIOConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a Thrift processor for every frame that {@link ThriftFrameFilter} delivers, and writes the
 * responses back in request order.
 *
 * <pre>
 *  TransportFilter -&gt; ThriftFrameFilter -&gt; ThriftServerFilter
 *                     (payload Buffer)     ProcessorInvoker.invoke(payload)
 *                                           -&gt; response frame, written in request order
 * </pre>
 *
 * <pre>{@code
 * transport.setProcessor(FilterChainBuilder.stateless()
 *     .add(new TransportFilter())
 *     .add(new ThriftFrameFilter())
 *     .add(new ThriftServerFilter(new BenchService.Processor<>(handler)))
 *     .build());
 * }</pre>
 *
 * <p>The processor (a {@link TProcessor} or {@link TAsyncProcessor}) runs on whichever thread
 * Grizzly's IO strategy delivers the read on: the selector thread with {@code
 * SameThreadIOStrategy}, a worker with {@code WorkerThreadIOStrategy}, the leader with {@code
 * LeaderFollowerNIOStrategy}. ({@link GrizzlyThriftServer} with {@code IoStrategy.WORKER} reads on
 * the selector threads and runs each request on its worker pool, so that one connection's
 * pipelined calls run in parallel.) The decisions (order, limits, overload, what a failure gets,
 * what is counted) are the server call path of thrift-nio's core, the same on every transport;
 * this filter is its Grizzly adapter. An asynchronous
 * processor may complete later, on any thread, and in any order: each connection keeps a queue of
 * its calls, and a response leaves only after every earlier response on that connection has, so
 * pipelining clients match responses first-in, first-out. Oneway calls take a place in the queue
 * and send nothing.
 *
 * <p>A request whose message header cannot be read has no sequence id to answer: the connection is
 * closed. A frame that {@link ThriftFrameFilter} rejects ends the connection after every earlier
 * response: when it was too large and its header arrived with its length, the caller first gets a
 * {@code TApplicationException(PROTOCOL_ERROR)} for its sequence id (oneway calls get nothing). A
 * handler failure is answered by {@link ProcessorInvoker} with a {@code TApplicationException}.
 * When a connection's async write queue is above its limit ({@code
 * Connection.setMaxAsyncWriteQueueSize}), reading from it stops until the peer has taken enough of
 * the responses; so it does while {@code maxCallsInFlightPerConnection} of its calls are in flight
 * (an asynchronous processor may leave many running). A response whose connection closed during the
 * call is dropped quietly and counted in {@code droppedResponses}.
 *
 * <p>One instance serves every connection of a filter chain.
 */
public final class ThriftServerFilter extends BaseFilter {

  private static final Logger log = LoggerFactory.getLogger(ThriftServerFilter.class);

  private static final Attribute<Adapter> CALLS =
      Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(
          ThriftServerFilter.class.getName() + ".calls");

  /**
   * How long a connection that was sent an error reply stays half-closed, its input read and
   * discarded, before it is closed: closing with unread input sends a reset, which can destroy the
   * reply before the peer reads it. The same as the Netty server's.
   */
  static final long LINGER_MILLIS = 1000;

  // Runs the close on the JDK's delay thread: a non-blocking hand-over to the selector.
  private static final Executor AFTER_LINGER =
      CompletableFuture.delayedExecutor(LINGER_MILLIS, TimeUnit.MILLISECONDS, Runnable::run);

  private final CallPath path;
  private volatile boolean draining;

  /**
   * A filter that runs {@code processor} for every frame, with {@code TBinaryProtocol}, the
   * protocol of libthrift's own servers, and frames up to {@value Framing#DEFAULT_MAX_FRAME_SIZE}
   * bytes.
   *
   * @param processor the processor, e.g. {@code new BenchService.Processor<>(handler)}
   */
  public ThriftServerFilter(TProcessor processor) {
    this(processor, new TBinaryProtocol.Factory());
  }

  /**
   * A filter that runs {@code processor} for every frame, with frames up to {@value
   * Framing#DEFAULT_MAX_FRAME_SIZE} bytes.
   *
   * @param processor the processor
   * @param protocol the protocol of requests and replies, e.g. {@code new
   *     TCompactProtocol.Factory()}
   */
  public ThriftServerFilter(TProcessor processor, TProtocolFactory protocol) {
    this(ProcessorInvoker.of(processor, protocol, protocol, Framing.DEFAULT_MAX_FRAME_SIZE));
  }

  /**
   * A filter that runs an asynchronous {@code processor}, which may complete its calls on any
   * thread and in any order, with frames up to {@value Framing#DEFAULT_MAX_FRAME_SIZE} bytes.
   *
   * @param processor the processor, e.g. {@code new BenchService.AsyncProcessor<>(handler)}
   * @param protocol the protocol of requests and replies
   */
  public ThriftServerFilter(TAsyncProcessor processor, TProtocolFactory protocol) {
    this(ProcessorInvoker.ofAsync(processor, protocol, protocol, Framing.DEFAULT_MAX_FRAME_SIZE));
  }

  /**
   * A filter that runs {@code invoker} for every frame, on the thread that delivers it. At most
   * {@value ServerBuilder#DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CONNECTION} calls of a connection are in
   * flight.
   *
   * @param invoker runs the processor, e.g. {@code ProcessorInvoker.of(processor, protocol,
   *     protocol, maxFrameSize)}; its protocols and frame limit are used for the replies this
   *     filter writes itself
   */
  public ThriftServerFilter(ProcessorInvoker invoker) {
    this(
        new CallPath(
            Objects.requireNonNull(invoker, "invoker"),
            null,
            new ServerCounters(),
            ServerBuilder.DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CONNECTION));
  }

  /** For {@link GrizzlyThriftServer}: the server's counters, limit and worker executor. */
  ThriftServerFilter(CallPath path) {
    this.path = path;
  }

  @Override
  public NextAction handleRead(FilterChainContext ctx) throws IOException {
    Connection<?> connection = ctx.getConnection();
    Adapter adapter = adapterOf(connection);
    Buffer message = ctx.getMessage();
    boolean more = adapter.calls.onRequest(message.toByteBuffer(), null);
    if (!more || !ThriftFrameFilter.moreFramesBuffered(connection)) {
      adapter.calls.readComplete(); // the last frame of this read: its replies leave together
    }
    if (!more) {
      // Until calls complete (or for good: a drain, a close), the next frame waits in the chain.
      ctx.suspend();
      return adapter.park(ctx) ? ctx.getSuspendAction() : ctx.getStopAction();
    }
    if (!connection.canWrite()) {
      return suspendUntilWritable(ctx, connection);
    }
    return ctx.getStopAction();
  }

  /**
   * Stops reading from the connection (Grizzly disables read interest while a context is
   * suspended) until its write queue drops below the limit.
   */
  private NextAction suspendUntilWritable(FilterChainContext ctx, Connection<?> connection) {
    ctx.suspend();
    ResumeOnWritable resume = new ResumeOnWritable(ctx, connection);
    connection.notifyCanWrite(resume);
    if (resume.registered()) {
      return ctx.getSuspendAction();
    }
    // Writable again before registration returned: carry on in this thread, no resume needed.
    return ctx.getStopAction();
  }

  /**
   * Ends {@code connection} after a frame that {@link ThriftFrameFilter} rejected: once every
   * earlier response has left, it sends a {@code PROTOCOL_ERROR} reply to {@code header} (if it is
   * known and not oneway), then closes.
   *
   * @param header the rejected frame's message header, or {@code null} if it could not be read
   * @param cause the rule the frame broke, with the length, the limit and the peer
   */
  void rejectFrame(Connection<?> connection, TMessage header, FrameSizeException cause) {
    adapterOf(connection).calls.onBadFrame(header, cause.getMessage());
  }

  @Override
  public NextAction handleClose(FilterChainContext ctx) throws IOException {
    Adapter adapter = CALLS.peek(ctx.getConnection());
    if (adapter != null) {
      adapter.calls.onClosed();
    }
    return ctx.getInvokeAction();
  }

  @Override
  public void exceptionOccurred(FilterChainContext ctx, Throwable error) {
    if (error instanceof IOException) {
      log.debug("Connection from {} failed", ctx.getConnection().getPeerAddress(), error);
    } else {
      log.warn("Unexpected failure on connection from {}", ctx.getConnection().getPeerAddress(),
          error);
    }
  }

  private Adapter adapterOf(Connection<?> connection) {
    Adapter adapter = CALLS.get(connection);
    if (adapter == null) {
      adapter = new Adapter(connection);
      CALLS.set(connection, adapter);
      if (draining) {
        adapter.calls.startDrain(); // the server began closing before this connection's first read
      }
    }
    return adapter;
  }

  // ---- for GrizzlyThriftServer

  /** Stops serving new connections: each that starts now drains at once. */
  void drain() {
    draining = true;
  }

  /**
   * Stops reading from {@code connection} and closes it once the requests it has delivered are
   * answered; at once if none is pending.
   */
  void drain(Connection<?> connection) {
    adapterOf(connection).calls.startDrain();
  }

  /** Nanos of the last frame or response on {@code connection}, or 0 if none yet. */
  static long lastActivity(Connection<?> connection) {
    Adapter adapter = CALLS.peek(connection);
    return adapter == null ? 0 : adapter.calls.lastActivityNanos();
  }

  /** Calls received on {@code connection} and not yet answered. */
  static int inFlight(Connection<?> connection) {
    Adapter adapter = CALLS.peek(connection);
    return adapter == null ? 0 : adapter.calls.pendingCalls();
  }

  /**
   * One connection as the call path sees it. Grizzly's writes are thread-safe, so replies are
   * written on whichever thread completes them; those of one batch leave in one write.
   */
  private final class Adapter implements ServerConnection {
    final Connection<?> connection;
    final CallSequencer calls;
    /** Replies written and not yet flushed; owned by the sequencer's writer. */
    private final List<Buffer> unflushed = new ArrayList<>(4);
    /** A read suspended at the in-flight limit; guarded by this. */
    private FilterChainContext parked;
    /** The sequencer let reading go on before the read was parked; guarded by this. */
    private boolean resumedBeforePark;

    Adapter(Connection<?> connection) {
      this.connection = connection;
      this.calls = path.open(this);
    }

    /** Parks a suspended read until {@link #resumeReading}; false if that already happened. */
    synchronized boolean park(FilterChainContext ctx) {
      if (resumedBeforePark) {
        resumedBeforePark = false;
        return false;
      }
      parked = ctx;
      return true;
    }

    @Override
    public void resumeReading() {
      FilterChainContext ctx;
      synchronized (this) {
        ctx = parked;
        parked = null;
        if (ctx == null) {
          resumedBeforePark = true;
          return;
        }
      }
      ctx.resume(ctx.getStopAction());
    }

    @Override
    public void write(ByteBuffer frame) {
      unflushed.add(Buffers.wrap(connection.getMemoryManager(), frame));
    }

    @Override
    public void flush() {
      flush(null);
    }

    private void flush(CompletionHandler<WriteResult<?, ?>> then) {
      int replies = unflushed.size();
      if (replies == 0) {
        if (then != null) {
          then.completed(null);
        }
        return;
      }
      Buffer batch;
      if (replies == 1) {
        batch = unflushed.get(0);
      } else {
        MemoryManager<?> memory = connection.getMemoryManager();
        batch = CompositeBuffer.newBuffer(memory, unflushed.toArray(new Buffer[0]));
      }
      unflushed.clear();
      writeCounted(batch, replies, then);
    }

    /** Writes {@code batch}; if it cannot be written (the peer reset meanwhile), counts it. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private void writeCounted(
        Buffer batch, int replies, CompletionHandler<WriteResult<?, ?>> then) {
      ServerCounters counters = path.counters();
      CompletionHandler<WriteResult<?, ?>> handler =
          new EmptyCompletionHandler<WriteResult<?, ?>>() {
            @Override
            public void completed(WriteResult<?, ?> result) {
              if (then != null) {
                then.completed(result);
              }
            }

            @Override
            public void failed(Throwable cause) {
              counters.droppedResponses.add(replies);
              if (then != null) {
                then.failed(cause);
              }
            }

            @Override
            public void cancelled() {
              counters.droppedResponses.add(replies);
              if (then != null) {
                then.cancelled();
              }
            }
          };
      ((Connection) connection).write(batch, (CompletionHandler) handler);
    }

    @Override
    public boolean inIoThread() {
      return true; // Grizzly's async write queue takes writes from any thread
    }

    @Override
    public void execute(Runnable task) {
      task.run();
    }

    @Override
    public void release(Object request) {
      // Grizzly never returns read buffers to its pool: the frame's memory goes with the GC.
    }

    @Override
    public void close(boolean halfCloseFirst) {
      if (!halfCloseFirst) {
        flush();
        connection.closeSilently(); // after the responses already queued
        return;
      }
      flush(
          new EmptyCompletionHandler<WriteResult<?, ?>>() {
            @Override
            public void completed(WriteResult<?, ?> result) {
              shutdownOutputThenClose(connection);
            }

            @Override
            public void failed(Throwable cause) {
              connection.closeSilently();
            }

            @Override
            public void cancelled() {
              connection.closeSilently();
            }
          });
    }

    @Override
    public boolean hasBufferedRequests() {
      // ThriftFrameFilter hands over one frame at a time; the rest of the read waits in the chain.
      return ThriftFrameFilter.moreFramesBuffered(connection);
    }

    @Override
    public void allAnswered() {
      // The timeout sweep reads the sequencer's lastActivityNanos.
    }

    @Override
    public SocketAddress remoteAddress() {
      Object peer = connection.getPeerAddress();
      return peer instanceof SocketAddress ? (SocketAddress) peer : null;
    }
  }

  /**
   * Sends FIN now and closes after {@link #LINGER_MILLIS}, or sooner when the peer closes; {@link
   * ThriftFrameFilter} discards what arrives meanwhile.
   */
  private static void shutdownOutputThenClose(Connection<?> connection) {
    Object channel =
        connection instanceof NIOConnection ? ((NIOConnection) connection).getChannel() : null;
    if (!(channel instanceof SocketChannel)) {
      connection.closeSilently();
      return;
    }
    try {
      ((SocketChannel) channel).shutdownOutput();
    } catch (IOException e) {
      // Closed meanwhile (the peer went away): nothing is left to shut down.
      connection.closeSilently();
      return;
    }
    AFTER_LINGER.execute(connection::terminateSilently);
  }

  /** Resumes a suspended read once the write queue drains; tolerates a synchronous callback. */
  private static final class ResumeOnWritable implements WriteHandler {
    private static final int REGISTERING = 0;
    private static final int FIRED_WHILE_REGISTERING = 1;
    private static final int REGISTERED = 2;

    private final FilterChainContext ctx;
    private final Connection<?> connection;
    private final AtomicInteger state = new AtomicInteger(REGISTERING);

    ResumeOnWritable(FilterChainContext ctx, Connection<?> connection) {
      this.ctx = ctx;
      this.connection = connection;
    }

    /** Whether the handler is waiting; false if it already fired during registration. */
    boolean registered() {
      return state.compareAndSet(REGISTERING, REGISTERED);
    }

    @Override
    public void onWritePossible() {
      if (state.compareAndSet(REGISTERING, FIRED_WHILE_REGISTERING)) {
        return;
      }
      ctx.resume(ctx.getStopAction());
    }

    @Override
    public void onError(Throwable t) {
      if (state.compareAndSet(REGISTERING, FIRED_WHILE_REGISTERING)) {
        connection.closeSilently();
        return;
      }
      connection.closeSilently();
      ctx.resume(ctx.getStopAction());
    }
  }
}
