package io.thriftnio.grizzly;

import io.thriftnio.core.FrameSizeException;
import io.thriftnio.core.ProcessorInvoker;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.internal.ServerCounters;
import io.thriftnio.grizzly.internal.ErrorReplies;
import io.thriftnio.grizzly.internal.GrizzlyWrites;
import io.thriftnio.grizzly.internal.OverloadAwareExecutor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
 * <p>The processor (a {@link org.apache.thrift.TProcessor} or {@link
 * org.apache.thrift.TAsyncProcessor}) runs on whichever thread Grizzly's IO strategy delivers the
 * read on: the selector thread with {@code SameThreadIOStrategy}, a worker with {@code
 * WorkerThreadIOStrategy}, the leader with {@code LeaderFollowerNIOStrategy}. An asynchronous
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

  private static final Attribute<Calls> CALLS =
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

  private final ProcessorInvoker invoker;
  private final ServerCounters counters;
  private final TProtocolFactory inputProtocolFactory;
  private final TProtocolFactory outputProtocolFactory;
  private final int maxFrameSize;
  private final int maxCallsInFlight;
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile boolean draining;
  private volatile Runnable drainListener = () -> {};
  /** Counts a response that could not be written: the connection broke after its call began. */
  private final CompletionHandler<WriteResult<?, ?>> countDropped =
      new EmptyCompletionHandler<WriteResult<?, ?>>() {
        @Override
        public void failed(Throwable cause) {
          counters.droppedResponses.increment();
        }

        @Override
        public void cancelled() {
          counters.droppedResponses.increment();
        }
      };

  /**
   * A filter that runs {@code invoker} for every frame.
   *
   * @param invoker runs the processor, e.g. {@code ProcessorInvoker.of(processor, protocol,
   *     protocol, maxFrameSize)}
   */
  public ThriftServerFilter(ProcessorInvoker invoker) {
    this(
        invoker,
        new ServerCounters(),
        null,
        null,
        0,
        ServerBuilder.DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CONNECTION);
  }

  /**
   * For {@link GrizzlyThriftServer}: counts calls and answers overloads.
   *
   * @param maxCallsInFlight calls of one connection in flight at once, above which the connection
   *     is not read from until calls complete
   */
  ThriftServerFilter(
      ProcessorInvoker invoker,
      ServerCounters counters,
      TProtocolFactory inputProtocolFactory,
      TProtocolFactory outputProtocolFactory,
      int maxFrameSize,
      int maxCallsInFlight) {
    this.maxCallsInFlight = maxCallsInFlight;
    this.invoker = Objects.requireNonNull(invoker, "invoker");
    this.counters = counters;
    this.inputProtocolFactory = inputProtocolFactory;
    this.outputProtocolFactory = outputProtocolFactory;
    this.maxFrameSize = maxFrameSize;
  }

  @Override
  public NextAction handleRead(FilterChainContext ctx) throws IOException {
    Connection<?> connection = ctx.getConnection();
    Calls calls = callsOf(connection);
    Buffer message = ctx.getMessage();
    calls.touch();
    if (draining) {
      // The server is closing: requests that arrive now are not started. The connection closes
      // once the calls already running have answered, which fails this one on the client.
      calls.closeWhenIdle();
      return ctx.getStopAction();
    }
    if (calls.isClosed()) {
      // After an unreadable header the connection is closing: later frames of the same read are
      // not run, as on Netty (a fuzzed request followed by a good one ran the good one unanswered).
      return ctx.getStopAction();
    }
    ByteBuffer payload = message.toByteBuffer();
    Call call = calls.begin();
    inFlight.incrementAndGet();
    CompletableFuture<ByteBuffer> response;
    if (OverloadAwareExecutor.isOverloaded() && inputProtocolFactory != null) {
      counters.overloadedCalls.increment();
      response = overloadReply(payload);
    } else {
      response = invoker.invoke(payload);
    }
    response.whenComplete((frame, failure) -> calls.finish(call, frame, failure));
    if (calls.running() >= maxCallsInFlight) {
      return suspendUntilCallsComplete(ctx, calls);
    }
    if (!connection.canWrite()) {
      return suspendUntilWritable(ctx, connection);
    }
    return ctx.getStopAction();
  }

  /**
   * Stops reading from the connection (the next frame, buffered or not, waits) until fewer than
   * maxCallsInFlight of its calls are in flight: an asynchronous processor may leave any number
   * running.
   */
  private NextAction suspendUntilCallsComplete(FilterChainContext ctx, Calls calls) {
    ctx.suspend();
    if (calls.resumeWhenBelowLimit(ctx)) {
      return ctx.getSuspendAction();
    }
    // Calls completed before registration: carry on in this thread, no resume needed.
    return ctx.getStopAction();
  }

  private CompletableFuture<ByteBuffer> overloadReply(ByteBuffer payload) {
    try {
      return CompletableFuture.completedFuture(
          ErrorReplies.internalError(
              payload,
              inputProtocolFactory,
              outputProtocolFactory,
              maxFrameSize,
              "server overloaded: worker queue full, request not run"));
    } catch (Exception unreadable) {
      return CompletableFuture.failedFuture(unreadable);
    }
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
   * known, not oneway, and this filter knows the protocol), then closes.
   *
   * @param header the rejected frame's message header, or {@code null} if it could not be read
   * @param cause the rule the frame broke, with the length, the limit and the peer
   */
  void rejectFrame(Connection<?> connection, TMessage header, FrameSizeException cause) {
    ByteBuffer reply = null;
    if (header != null && outputProtocolFactory != null) {
      reply =
          ErrorReplies.protocolError(
              header,
              outputProtocolFactory,
              maxFrameSize,
              "request " + header.name + " rejected: " + cause.getMessage());
    }
    Calls calls = callsOf(connection);
    Call last = calls.beginLast();
    inFlight.incrementAndGet();
    calls.finish(last, reply, null);
  }

  @Override
  public NextAction handleClose(FilterChainContext ctx) throws IOException {
    Calls calls = CALLS.peek(ctx.getConnection());
    if (calls != null) {
      calls.closed();
    }
    return ctx.getInvokeAction();
  }

  @Override
  public void exceptionOccurred(FilterChainContext ctx, Throwable error) {
    log.debug("Error on {}", ctx.getConnection().getPeerAddress(), error);
  }

  private Calls callsOf(Connection<?> connection) {
    Calls calls = CALLS.get(connection);
    if (calls == null) {
      calls = new Calls(connection);
      CALLS.set(connection, calls);
    }
    return calls;
  }

  // ---- for GrizzlyThriftServer

  /** Calls started and not yet answered, on every connection. */
  int inFlight() {
    return inFlight.get();
  }

  /**
   * Stops starting new calls; closes each connection once its running calls have answered.
   *
   * @param listener runs every time a call finishes while draining
   */
  void drain(Runnable listener) {
    drainListener = listener;
    draining = true;
  }

  /** Closes {@code connection} now if no call runs on it, else after its last response. */
  static void closeWhenIdle(Connection<?> connection) {
    Calls calls = CALLS.peek(connection);
    if (calls == null) {
      connection.closeSilently();
    } else {
      calls.closeWhenIdle();
    }
  }

  /** Nanos of the last frame or response on {@code connection}, or 0 if none yet. */
  static long lastActivity(Connection<?> connection) {
    Calls calls = CALLS.peek(connection);
    return calls == null ? 0 : calls.lastActivityNanos;
  }

  /** Calls running on {@code connection}. */
  static int inFlight(Connection<?> connection) {
    Calls calls = CALLS.peek(connection);
    return calls == null ? 0 : calls.running();
  }

  /** One request's place in its connection's response order. */
  private static final class Call {
    boolean done;
    /** The connection's last call: a rejected frame, answered (or not) before the close. */
    boolean closeAfter;
    ByteBuffer response;
    Throwable failure;
  }

  /** The calls of one connection, answered in the order they arrived. */
  private final class Calls {
    private final Connection<?> connection;
    private final ArrayDeque<Call> queue = new ArrayDeque<>();
    private boolean closeWhenIdle;
    private boolean closed;
    /** A read suspended because maxCallsInFlight calls were in flight; null if none. */
    private FilterChainContext suspendedRead;
    volatile long lastActivityNanos = System.nanoTime();

    Calls(Connection<?> connection) {
      this.connection = connection;
    }

    void touch() {
      lastActivityNanos = System.nanoTime();
    }

    synchronized int running() {
      return queue.size();
    }

    synchronized Call begin() {
      Call call = new Call();
      queue.add(call);
      return call;
    }

    synchronized Call beginLast() {
      Call call = begin();
      call.closeAfter = true;
      return call;
    }

    /**
     * Registers a suspended read to resume once fewer than maxCallsInFlight calls are in flight.
     *
     * @return false if that is already so: nothing was registered
     */
    synchronized boolean resumeWhenBelowLimit(FilterChainContext ctx) {
      if (queue.size() < maxCallsInFlight) {
        return false;
      }
      suspendedRead = ctx;
      return true;
    }

    void finish(Call call, ByteBuffer response, Throwable failure) {
      int finished = 0;
      FilterChainContext resume = null;
      synchronized (this) {
        call.done = true;
        call.response = response;
        call.failure = failure;
        if (queue.peek() == call) {
          // Before the queue can drain: the idle sweep must never see no call and an old time.
          touch();
        }
        Call head;
        while ((head = queue.peek()) != null && head.done) {
          queue.poll();
          finished++;
          if (!closed) {
            send(head);
          } else if (!head.closeAfter) {
            if (head.failure == null) {
              counters.completedCalls.increment(); // it ran; its response has no one to go to
            }
            if (head.response != null) {
              counters.droppedResponses.increment(); // the connection closed during the call
            }
          }
        }
        if (closeWhenIdle && queue.isEmpty()) {
          connection.closeSilently();
        }
        if (suspendedRead != null && queue.size() < maxCallsInFlight) {
          resume = suspendedRead;
          suspendedRead = null;
        }
      }
      if (resume != null) {
        resume.resume(resume.getStopAction());
      }
      if (finished > 0) {
        touch();
        inFlight.addAndGet(-finished);
        if (draining) {
          drainListener.run();
        }
      }
    }

    /** Called with the lock held, so writes enter Grizzly's write queue in request order. */
    private void send(Call call) {
      if (call.closeAfter) {
        sendLast(call.response);
        return;
      }
      if (call.failure != null) {
        counters.badFrames.increment();
        log.warn(
            "Closing connection from {}: request header unreadable ({})",
            connection.getPeerAddress(),
            call.failure.toString());
        closed = true;
        connection.closeSilently();
        return;
      }
      counters.completedCalls.increment();
      if (call.response == null) {
        return; // oneway
      }
      if (outputProtocolFactory != null
          && ErrorReplies.isFailedCall(call.response, outputProtocolFactory, maxFrameSize)) {
        counters.failedCalls.increment();
      }
      writeCounted(connection, Buffers.wrap(connection.getMemoryManager(), call.response));
    }

    private void sendLast(ByteBuffer reply) {
      closed = true;
      if (reply == null) {
        connection.closeSilently(); // after the responses already queued
        return;
      }
      counters.failedCalls.increment();
      GrizzlyWrites.write(
          connection,
          Buffers.wrap(connection.getMemoryManager(), reply),
          failure -> {
            if (failure == null) {
              shutdownOutputThenClose(connection);
            } else {
              connection.closeSilently();
            }
          });
    }

    synchronized void closeWhenIdle() {
      closeWhenIdle = true;
      if (queue.isEmpty()) {
        connection.closeSilently();
      }
    }

    synchronized void closed() {
      closed = true;
    }

    synchronized boolean isClosed() {
      return closed;
    }
  }

  /** Writes a response; one that cannot be written (the peer reset meanwhile) is counted. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private void writeCounted(Connection<?> connection, Buffer response) {
    ((Connection) connection).write(response, (CompletionHandler) countDropped);
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
