package io.thriftnio.core.internal.server;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.thriftnio.core.CloseCause;
import io.thriftnio.core.internal.AdaptiveLimit;
import io.thriftnio.core.util.internal.ClientTimeouts;
import io.thriftnio.core.wire.Envelope;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The calls of one server connection: dispatches each request, answers them in request order,
 * bounds the calls in flight, enforces the calls' deadlines, and closes the connection after a bad
 * request or once a drain has answered everything. Transport-neutral: the IO adapter delivers one
 * request message at a time and implements {@link ServerConnection}.
 *
 * <pre>
 *  requests:   [ seq 1 ][ seq 2 ][ seq 3 ]          (one read batch)
 *  completed:            seq 2, seq 3, seq 1        (workers finish out of order)
 *  written:    [ seq 1 ][ seq 2 ][ seq 3 ]          (held back until seq 1 is done; one flush)
 * </pre>
 *
 * <p>A request whose envelope says its peer matches replies by id ({@link Envelope#outOfOrder()}:
 * THeader's {@code SUPPORT_OUT_OF_ORDER} flag) is answered as soon as its call ends, ahead of
 * earlier calls still running (the example above would write 2, 3, 1); on a {@code WORKER} server
 * only, in effect: the other strategies run a connection's calls one after another.
 *
 * <p>One state machine, in this one class: the requests in reply order ({@link Call}, nested here,
 * is each one's place in it, its worker task and its completion), the dispatch of the requests that
 * waited for the in-flight limit, the ordered writer, and the deadline check. {@link Refusals}
 * answers the calls the server ends itself (refused or not started by the worker executor, past
 * {@code handlerTimeout}, {@link #notRun}, an unreadable header) and hands each to {@link #finish};
 * {@link CallDeadlines} holds the timer the checks run on.
 *
 * <p>Threads and locking: {@link #onRequest}, {@link #readComplete} and {@link #onBadFrame} come
 * from the thread reading the connection, one at a time; calls complete on any thread; the deadline
 * check runs on the timer thread. Every field shared across them is guarded by {@link #lock},
 * private to this class and held only for bookkeeping: nothing outside this class runs under it (no
 * processor, interceptor, completion, listener, and none of the connection's IO methods). The
 * fields of each {@link Call} that the order needs ({@code done}, {@code reply}, ...) are guarded
 * by the lock of the sequencer that owns the call, and only this class touches them (Error Prone's
 * {@code @GuardedBy} cannot name another object's lock, so they are documented, not annotated). The
 * writer's own fields belong to the one thread that writes at a time ({@link #writing}); replies
 * are written outside the lock by that writer, which takes every reply that is ready in one go.
 * Replies written while a read batch is delivered are flushed once at {@link #readComplete}, or
 * earlier when a call on the reading thread that may block it runs long ({@link InlineStallWatch});
 * replies completed elsewhere are handed to the IO thread once per batch ({@link
 * ServerConnection#execute}) and flushed there.
 *
 * <p>Counting ({@code ServerStats}): a call that ran counts in {@code completedCalls}, and in
 * {@code failedCalls} when it ended in a {@code TApplicationException}, as {@link ProcessorInvoker}
 * reports it (the reply is never parsed again); a call refused or not started in time counts in
 * {@code overloadedCalls} only; a call timed out as {@link Refusals} says; a request whose header
 * is unreadable, and a frame the adapter's decoder refused, count in {@code badFrames} (the latter
 * also in {@code failedCalls} when it is answered); a reply that could not be sent because the
 * connection closed counts in {@code droppedResponses}.
 */
public final class CallSequencer {

  static final Logger log = LoggerFactory.getLogger(CallSequencer.class);

  /**
   * How long a draining connection must be quiet (no call pending, no request received) before it
   * closes: a client still writing when the drain began reads a reply to each call it wrote, normal
   * or {@link io.thriftnio.core.NotRun not run}, instead of a reset. Long enough for calls already
   * on the wire, and for a pool to stop sending once it reads a refusal; the drain timeout still
   * bounds the whole drain.
   */
  static final long DRAIN_QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  /**
   * How long a draining connection refuses calls at most, for a client that keeps sending despite
   * the refusals (one that does not read {@code not run}: a stock client of another language): once
   * past it, the connection closes as soon as no call is pending, quiet or not, so such a client
   * reconnects (elsewhere, or to the server's successor) instead of being refused for the whole
   * drain timeout.
   */
  static final long DRAIN_REFUSING_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** What a call that reaches a draining server is answered: {@code not run: } and this. */
  static final String DRAINING = "the server is draining";

  /**
   * This connection's number, for {@code ServerCallContext.connectionId()}: its registration's, or
   * a new one when it has none (a handler in a pipeline of the user's own).
   */
  final long id;

  final CallPath path;
  final ServerConnection connection;

  /**
   * Sheds calls that waited too long under overload ({@link QueueTimeBound}); {@code null}: off.
   */
  private final QueueTimeBound queueBound;

  private final boolean writesFromAnyThread;

  /**
   * Runs a task on this connection's IO thread after its current pass ({@link
   * ServerConnection#runsTasksAfterEachPass()}), for the {@link WorkerHandOff}; {@code null} where
   * calls go to the worker one at a time.
   */
  private final Executor afterPass;

  private final Runnable writeTask = this::writeHandedOver;
  private final Runnable deadlineCheck = this::checkDeadlines;
  private final Runnable quietCheck = this::checkQuiet;
  private final Envelope.Outbound outbound = this::send;

  /**
   * Guards the state below; held only for bookkeeping, never while code outside this class runs.
   */
  private final Object lock = new Object();

  /** Requests received whose replies have not been written, in order; includes waiting ones. */
  @GuardedBy("lock")
  private final ArrayDeque<Call> slots = new ArrayDeque<>();

  /** Requests received while maxCallsInFlight calls were in flight, not yet dispatched. */
  @GuardedBy("lock")
  private final ArrayDeque<Call> waiting = new ArrayDeque<>();

  /**
   * A call whose envelope allows {@link Envelope#outOfOrder() out-of-order} replies is done while
   * an earlier one is not: the writer looks past the head of {@link #slots}.
   */
  @GuardedBy("lock")
  private boolean outOfOrderDone;

  /** Replies were written and not yet flushed. */
  @GuardedBy("lock")
  private boolean unflushed;

  /**
   * Calls started on the reading thread while replies of their read batch waited for its flush
   * (with {@link CallPath#inlineStalls} only); {@link #inlineStartsSeen} is its value at the
   * watch's last look.
   */
  @GuardedBy("lock")
  private long inlineStarts;

  @GuardedBy("lock")
  private long inlineStartsSeen;

  /** The connection is in the server's {@link InlineStallWatch}. */
  @GuardedBy("lock")
  private boolean watched;

  /**
   * {@code LEADER_FOLLOWER} while its calls compute ({@link RunGate} bounded): the read batch being
   * delivered holds a turn to run calls, taken at its first call and given back at its end ({@link
   * #readComplete}) or at the close; {@code null}: none.
   */
  @GuardedBy("lock")
  private RunGate.Permit batchTurn;

  /** The read batch being delivered found no turn: its other calls are refused without a wait. */
  @GuardedBy("lock")
  private boolean batchRefusedTurn;

  /** The connection closed: a turn taken now is given back at once. */
  @GuardedBy("lock")
  private boolean turnsClosed;

  /** The reading thread ({@link #readingThread}) is delivering a read batch. */
  @GuardedBy("lock")
  private boolean inReadBatch;

  @GuardedBy("lock")
  private Thread readingThread;

  /**
   * {@link System#nanoTime()} when the read batch being delivered began: every request of the batch
   * had arrived by then, so a call that waits for the calls ahead of it in the batch (run inline,
   * on {@code SAME_THREAD} and {@code LEADER_FOLLOWER}) counts that wait in its queue time and
   * against its caller's deadline. Not against {@code handlerTimeout}, the server's bound on a call
   * that holds its connection, which counts from the call's own delivery.
   */
  @GuardedBy("lock")
  private long batchStartNanos;

  /** Requests delivered in the read batch being delivered, or in the last one. */
  @GuardedBy("lock")
  private int batchCalls;

  /** A close is decided: requests delivered from now on are dropped. */
  @GuardedBy("lock")
  private boolean closing;

  /** Nothing more is written: the connection is gone, or its last reply has been written. */
  @GuardedBy("lock")
  private boolean closed;

  /**
   * Past its {@code maxConnectionAge}: the next reply that can say the connection closes after it
   * (HTTP's {@code Connection: close}) says so, and the connection closes once it is sent.
   */
  @GuardedBy("lock")
  private boolean aged;

  /** A thread runs {@link #dispatchWaiting}'s loop. */
  @GuardedBy("lock")
  private boolean dispatchingWaiting;

  /** A thread runs the writer ({@link #write}); the writer's own fields are its. */
  @GuardedBy("lock")
  private boolean writing;

  /** The writer was handed over to the IO thread ({@link #writeTask}) and has not run yet. */
  @GuardedBy("lock")
  private boolean writeHandedOver;

  /** A deadline check is scheduled for {@link #dueNanos}. */
  @GuardedBy("lock")
  private boolean armed;

  @GuardedBy("lock")
  private long dueNanos;

  /** The deadline check last scheduled, for a close to cancel. */
  @GuardedBy("lock")
  private ScheduledFuture<?> future;

  /** Written under the lock; read without it by the reading thread and the transport. */
  private volatile boolean draining;

  /**
   * {@link System#nanoTime()} of the last request received; at first, when the connection was made:
   * a drain closes a connection that never sent anything once it is {@link #DRAIN_QUIET_NANOS} old,
   * so the call its client writes right after connecting (to a server already draining, issue 38)
   * is answered {@code not run} instead of meeting a closed socket.
   */
  @GuardedBy("lock")
  private long lastRequestNanos = System.nanoTime();

  /** {@link System#nanoTime()} when the drain began. */
  @GuardedBy("lock")
  private long drainStartedNanos;

  /** A check of the drain's quiet close is scheduled. */
  @GuardedBy("lock")
  private boolean quietCheckArmed;

  /** Written under the lock; read without it by the adapter ({@link #isReadingPaused}). */
  private volatile boolean readingPaused;

  /** Written under the lock; read without it by the transport's timeouts. */
  private volatile long lastActivityNanos = System.nanoTime();

  // The writer's own: only the thread that set writing touches these, until it clears it.
  /** Replies taken from {@link #slots}, being written. */
  private final ArrayDeque<Call> outbox = new ArrayDeque<>();

  /** The reply being written: whether it sent anything, and whether its bytes are dropped. */
  private boolean sent;

  private boolean dropping;

  CallSequencer(CallPath path, ServerConnection connection) {
    this.path = path;
    this.connection = connection;
    this.writesFromAnyThread = connection.writesFromAnyThread();
    this.afterPass =
        path.handOff != null && connection.runsTasksAfterEachPass() ? connection::execute : null;
    this.queueBound = path.queueBoundFor();
    RegisteredConnection<?> registration = connection.registration();
    this.id = registration != null ? registration.id() : ConnectionIds.next();
  }

  /**
   * A framed request arrived: {@link #onRequest(ByteBuffer, Object, Envelope)} with {@link
   * Envelope#FRAMED}.
   */
  public boolean onRequest(ByteBuffer payload, Object request) {
    return onRequest(payload, request, Envelope.FRAMED);
  }

  /**
   * A request arrived. Dispatches it, or keeps it undispatched while {@code
   * maxCallsInFlightPerConnection} calls are in flight. Its reply leaves through {@code envelope},
   * as the request's wire kind wants it (a frame, a bare message, an HTTP response: see {@link
   * Envelope#encode}); the connection closes after it when the envelope says so.
   *
   * @param payload the request message (no framing), from position to limit; read in place until
   *     {@link ServerConnection#release} is called with {@code request}
   * @param request the adapter's handle for the memory behind {@code payload}, given back to {@link
   *     ServerConnection#release} exactly once; may be {@code null}
   * @param envelope how the reply leaves, from the adapter's decoder
   * @return whether the adapter may deliver further requests now; if {@code false}, it stops
   *     reading until {@link ServerConnection#resumeReading()} (requests it has already decoded may
   *     still be delivered)
   */
  public boolean onRequest(ByteBuffer payload, Object request, Envelope envelope) {
    Call slot;
    boolean dispatch;
    boolean refuse = false;
    long check = -1;
    synchronized (lock) {
      if (closing) {
        slot = null; // after a bad request or a close: nothing more is served
        dispatch = false;
      } else {
        long now = System.nanoTime();
        if (!inReadBatch) {
          batchStartNanos = now;
          batchCalls = 0;
        }
        batchCalls++;
        inReadBatch = true;
        readingThread = Thread.currentThread();
        lastActivityNanos = now;
        lastRequestNanos = now;
        slot = new Call(this, payload, request, envelope, batchStartNanos, now);
        slots.add(slot);
        if (draining) {
          // Reached the server during its drain: answered without running, in its turn.
          refuse = true;
          dispatch = false;
        } else {
          dispatch = waiting.isEmpty() && slots.size() <= path.maxCallsInFlight;
          check = received(slot, now, dispatch);
          if (!dispatch) {
            waiting.add(slot);
          }
        }
      }
    }
    if (slot == null) {
      if (request != null) {
        connection.release(request);
      }
      return false;
    }
    if (check >= 0) {
      schedule(check); // first: SAME_THREAD runs the call inline, and it may never end
    }
    if (dispatch) {
      dispatch(slot);
    } else if (refuse) {
      refuseDraining(slot);
    }
    // During a drain reading goes on: each request that arrives is answered, not left unread.
    synchronized (lock) {
      boolean full = !waiting.isEmpty() || slots.size() >= path.maxCallsInFlight;
      readingPaused = closing || full;
      return !readingPaused;
    }
  }

  /**
   * A request that reached the connection after its drain began is answered {@code not run: the
   * server is draining (<method> seqid <n>)}, in its place in the reply order, so that its caller
   * knows it may send it elsewhere; the connection closes once quiet.
   */
  private void refuseDraining(Call slot) {
    notRun(slot, DRAINING);
  }

  /**
   * Sends bytes without a call, after every earlier reply: what the adapter's decoder answers on
   * its own ({@code WireEvent.ANSWER}: an HTTP refusal, {@code 100 Continue}).
   *
   * @param answer the whole answer; {@code null} for none (a probe connection's close, say)
   * @param refusal whether it refuses a request (counted in {@code badFrames})
   * @param closeAfter whether the connection closes after it; nothing later is read or answered
   */
  public void onAnswer(ByteBuffer answer, boolean refusal, boolean closeAfter) {
    if (refusal) {
      path.counters.badFrames.increment();
    }
    synchronized (lock) {
      if (closing) {
        return;
      }
      if (closeAfter) {
        closing = true;
        readingPaused = true;
      }
      Call last = new Call(this, null, null, Envelope.FRAMED, 0, 0);
      last.done = true;
      last.head = answer;
      last.closeAfter = closeAfter;
      slots.add(last);
    }
    writeReady();
  }

  /**
   * The connection's handshake of its wire kind's own failed (a SASL negotiation: {@code
   * Refusal.handshakeFailed}): counts it as {@code cause} (not as a bad frame), tells the
   * connection listeners that cause, sends {@code answer} after every earlier reply, and closes.
   *
   * @param answer the kind's refusal (SASL's {@code BAD} or {@code ERROR} message)
   * @param cause why the connection closes, e.g. {@link CloseCause#SASL_FAILURE}
   */
  public void onHandshakeFailure(ByteBuffer answer, CloseCause cause) {
    if (cause == CloseCause.SASL_FAILURE) {
      path.counters.saslFailures.increment();
    }
    RegisteredConnection<?> registration = connection.registration();
    if (registration != null) {
      registration.noteClose(cause); // before the close, which would note a bad request
    }
    onAnswer(answer, false, true);
  }

  /** The adapter has delivered every request of one read: replies written meanwhile leave now. */
  public void readComplete() {
    boolean single;
    boolean flush;
    RunGate.Permit turn;
    synchronized (lock) {
      inReadBatch = false;
      single = batchCalls == 1;
      flush = unflushed;
      turn = batchTurn;
      batchTurn = null;
      batchRefusedTurn = false;
    }
    if (turn != null) {
      path.runGate.leave(turn);
    }
    if (single && queueBound != null && path.worker == null) {
      queueBound.emptied(System.nanoTime()); // one call read, none behind it: no standing queue
    }
    if (flush) {
      writeReady();
    }
  }

  /** A framed request refused: {@link #onBadFrame(TMessage, String, Envelope)}, framed. */
  public void onBadFrame(TMessage header, String reason) {
    onBadFrame(header, reason, Envelope.FRAMED);
  }

  /**
   * The adapter's decoder refused the connection's bytes (a frame length {@code <= 0} or above
   * {@code maxFrameSize}, an invalid unframed message, first bytes of no accepted kind) and logged
   * it. After every earlier reply, answers {@code header} with {@code
   * TApplicationException(PROTOCOL_ERROR)} when it is known and not oneway, then closes (output
   * first, see {@link ServerConnection#close}).
   *
   * @param header the refused message's header, or {@code null} if it could not be read
   * @param reason the rule the bytes broke, with the numbers
   * @param envelope how the answer to {@code header} leaves
   */
  public void onBadFrame(TMessage header, String reason, Envelope envelope) {
    path.counters.badFrames.increment();
    Envelope replyEnvelope = envelope != null ? envelope : Envelope.FRAMED;
    ByteBuffer reply =
        header == null
            ? null
            : ErrorReplies.applicationException(
                header,
                TApplicationException.PROTOCOL_ERROR,
                "request " + header.name + " rejected: " + reason,
                path.invokerFor(replyEnvelope).outputProtocolFactory(),
                path.invoker.maxFrameSize());
    synchronized (lock) {
      if (closing) {
        return;
      }
      closing = true;
      readingPaused = true;
      Call last = new Call(this, null, null, replyEnvelope, 0, 0);
      last.done = true;
      last.reply = reply;
      last.closeAfter = true;
      slots.add(last);
    }
    if (reply != null) {
      path.counters.failedCalls.increment();
    }
    writeReady();
  }

  /**
   * The server is closing: the requests delivered so far are run and answered as usual; reading
   * goes on, and every request that arrives from now on is answered {@code not run} ({@link
   * io.thriftnio.core.NotRun}) without running; the connection closes once quiet: no call pending
   * and no request received for {@link #DRAIN_QUIET_NANOS}; at once if it is quiet already. A
   * client that keeps sending despite the refusals is closed on once nothing is pending {@link
   * #DRAIN_REFUSING_NANOS} after the drain began. Idempotent.
   */
  public void startDrain() {
    synchronized (lock) {
      if (draining) {
        return;
      }
      draining = true;
      drainStartedNanos = System.nanoTime();
    }
    // The writer closes the connection once nothing is pending: it alone may call the IO methods.
    writeOnIoThread();
  }

  /**
   * The connection is gone. Requests not yet dispatched are released; calls running release their
   * own requests when they complete, and their replies are counted as dropped. The deadline check
   * is cancelled unless a call still waits for the executor (the check answers it, which releases
   * its request); calls that run are not timed out any more: their replies would be dropped.
   */
  public void onClosed() {
    Call[] neverDispatched;
    ScheduledFuture<?> cancel = null;
    RunGate.Permit turn;
    synchronized (lock) {
      closing = true;
      closed = true;
      readingPaused = true;
      turn = batchTurn;
      batchTurn = null;
      turnsClosed = true;
      neverDispatched = waiting.toArray(new Call[0]);
      slots.removeAll(waiting);
      waiting.clear();
      boolean queuedUnstarted = false;
      for (Call call : slots) {
        if (call.queued && call.unclaimed()) {
          queuedUnstarted = true;
          break;
        }
      }
      if (!queuedUnstarted) {
        cancel = future;
        future = null;
      }
    }
    if (turn != null) {
      path.runGate.leave(turn); // a read batch cut short by the close
    }
    for (Call slot : neverDispatched) {
      slot.abandon(); // no reply, nothing dropped
    }
    if (cancel != null) {
      cancel.cancel(false);
    }
    writeReady();
  }

  /**
   * The connection is past its {@code maxConnectionAge} (the transport's timeouts found it so): the
   * next reply that is the only call pending and whose envelope can tell the peer ({@link
   * Envelope#closeAfterReply()}) closes the connection after it, as {@code CloseCause.AGED}.
   */
  public void markAged() {
    synchronized (lock) {
      aged = true;
    }
  }

  /** Calls received and not yet answered. */
  public int pendingCalls() {
    synchronized (lock) {
      return slots.size();
    }
  }

  /** Whether a close is decided (a bad request, a drain that is over, the connection gone). */
  public boolean isClosing() {
    synchronized (lock) {
      return closing;
    }
  }

  /** Whether reading is paused (calls in flight at the limit, a drain, a close). */
  public boolean isReadingPaused() {
    return readingPaused;
  }

  /** {@link System#nanoTime()} of the last request received or reply written. */
  public long lastActivityNanos() {
    return lastActivityNanos;
  }

  /**
   * Answers {@code call} without running it: {@code TApplicationException(INTERNAL_ERROR, "not run:
   * <reason> (<method> seqid <id>)")} ({@link io.thriftnio.core.NotRun}), in its place in the reply
   * order; or, if that reply cannot be encoded or the request's header cannot be read, closes the
   * connection after the replies ahead of it (see {@link Refusals}). A oneway call has nothing to
   * answer. Counts nothing and logs at DEBUG: the caller does both as its case needs. Call it
   * outside this sequencer's lock, for a call received and not yet dispatched, or dispatched and
   * not yet started.
   *
   * @param call a call of this connection
   * @param reason why it is not run, for its caller, e.g. {@code the server is draining}
   * @return whether this answered it; {@code false} if a worker started it, or another refusal (a
   *     timeout) took it first
   */
  boolean notRun(Call call, String reason) {
    if (!call.claim(false)) {
      return false;
    }
    Refusals.notRun(this, call, reason);
    return true;
  }

  /**
   * Records a call's outcome, on the thread that ended it, and writes what is ready.
   *
   * @param reply the reply frame, or {@code null} for none
   * @param closeAfter the call cannot be answered (its header is unreadable, its error reply cannot
   *     be encoded): the connection closes after the replies ahead of it
   */
  void finish(Call slot, ByteBuffer reply, boolean closeAfter) {
    if (path.limit != null) {
      slot.releasePermit(closeAfter);
    }
    Object request = slot.request;
    slot.request = null;
    if (request != null) {
      connection.release(request); // the invoker has read the request for the last time
    }
    boolean unreadable = closeAfter;
    closeAfter |= slot.envelope.closesConnection();
    boolean agedClose = false;
    synchronized (lock) {
      // Only the last request received: a later one (HTTP pipelining) may already be running.
      if (aged && !closeAfter && !closing && slots.size() == 1) {
        agedClose = closeAfter = slot.envelope.closeAfterReply();
      }
      slot.reply = reply;
      slot.unreadable = unreadable;
      slot.closeAfter = closeAfter;
      slot.done = true;
      if (closeAfter) {
        closing = true;
        readingPaused = true;
      } else if (slot.envelope.outOfOrder() && slots.peekFirst() != slot) {
        outOfOrderDone = true; // its peer matches replies by id: it need not wait its turn
      }
    }
    if (agedClose) {
      RegisteredConnection<?> registration = connection.registration();
      if (registration != null && registration.noteClose(CloseCause.AGED)) {
        path.counters.agedConnections.increment();
      }
    }
    writeReady();
  }

  // ---- Dispatch: where a call runs, and the requests that waited for the in-flight limit ----

  private void dispatch(Call slot) {
    Executor worker = path.worker;
    if (worker == null) {
      if (path.limit != null && !admitted(slot)) {
        return;
      }
      if (path.inlineStalls != null) {
        watchInlineCall();
      }
      slot.run();
      return;
    }
    // Found by fuzzing: a request after an unreadable one must not start on another worker while
    // the connection closes; the check runs here, in request order, on the reading thread.
    Throwable unreadable =
        HeaderCheck.unreadable(
            slot.payload,
            path.invokerFor(slot.envelope).inputProtocolFactory(),
            path.headerConfiguration);
    if (unreadable != null) {
      if (slot.claim(false)) { // else it timed out already, and was answered
        slot.unreadable(unreadable);
      }
      return;
    }
    if (queueBound != null && refusedOnArrival(slot)) {
      return;
    }
    if (path.limit != null && !admitted(slot)) {
      return;
    }
    RunGate gate = path.runGate;
    if (gate != null && gate.bounded()) {
      if (gate.queueFull()) {
        turnQueueFull(slot, gate);
        return;
      }
      if (gate.queueIfFull(slot)) {
        return; // waits for a permit as a task: a worker that gives one back runs it
      }
    }
    WorkerHandOff handOff = path.handOff;
    if (handOff != null) {
      if (afterPass != null && handOff.batching() && connection.inIoThread()) {
        handOff.add(slot, afterPass); // to the worker at the end of this pass, with its other calls
      } else {
        handOff.toPool(slot);
      }
      return;
    }
    try {
      worker.execute(slot);
    } catch (RejectedExecutionException e) {
      refuse(slot, e);
    }
  }

  /**
   * Whether {@code slot} was refused as it arrived at the worker pool: the calls waiting to start
   * stand past the queue-time target ({@link QueueTimeBound#refusesArrivals}), so it would wait
   * past the target too. Answered where it is dispatched (the reading thread, unless it waited for
   * the in-flight limit), its reply leaves with the read batch's instead of costing a worker's
   * wake-up and a write of its own.
   */
  private boolean refusedOnArrival(Call slot) {
    long now = System.nanoTime();
    if (!queueBound.refusesArrivals(now) || !callsWaitToStart()) {
      return false;
    }
    if (slot.claim(false)) { // else it timed out already, and was answered
      Refusals.queueStands(this, slot, queueBound.describe(now));
    }
    return true;
  }

  /**
   * Whether calls are seen waiting to start: for a permit to run ({@link RunGate}), or in the
   * worker pool's queue; on an executor whose queue cannot be seen, only the former: its calls are
   * judged as they start ({@link #startsTooLate}), so that a queue that has drained is not taken
   * for one that stands.
   */
  private boolean callsWaitToStart() {
    RunGate gate = path.runGate;
    return (gate != null && gate.hasWaiters())
        || (path.worker instanceof ThreadPoolExecutor pool && !pool.getQueue().isEmpty());
  }

  /** {@code slot} would wait for a turn to compute behind as many calls as may wait. */
  private void turnQueueFull(Call slot, RunGate gate) {
    if (slot.claim(false)) { // else it timed out already, and was answered
      Refusals.turnQueueFull(this, slot, gate);
    }
  }

  /** The worker executor refused {@code call}, a {@link Call} of any connection. */
  static void refuse(Runnable call, RejectedExecutionException e) {
    Call slot = (Call) call;
    if (slot.claim(false)) { // else it ran, or was given up while execute() blocked
      Refusals.refused(slot.calls, slot, e);
    }
  }

  /**
   * Whether the server's adaptive limit lets {@code slot} start: it takes a permit, given back when
   * the call is answered ({@link #finish}); if the calls in progress are at the limit the call is
   * answered {@code not run} at once (an overload), instead of waiting for a worker.
   */
  private boolean admitted(Call slot) {
    AdaptiveLimit.Permit permit = path.limit.tryAcquire();
    if (permit != null) {
      if (!slot.holdPermit(permit)) {
        permit.ignored(); // the timer answered the call meanwhile: it never starts
        return false;
      }
      return true;
    }
    if (slot.claim(false)) { // else it timed out already, and was answered
      Refusals.overLimit(this, slot, path.limit);
    }
    return false;
  }

  /**
   * A call is about to run on the reading thread, which it may block ({@code LEADER_FOLLOWER}): if
   * replies of this read batch wait for the batch's flush, the server's {@link InlineStallWatch}
   * flushes them should the call run long. Flushing them here instead cost a write per pipelined
   * call (issue 41).
   */
  private void watchInlineCall() {
    boolean start;
    synchronized (lock) {
      if (!unflushed) {
        return; // nothing waits for this call
      }
      inlineStarts++;
      if (watched) {
        return;
      }
      watched = true;
      start = path.inlineStalls.join(this);
    }
    if (start) {
      path.inlineStalls.start();
    }
  }

  /**
   * The {@link InlineStallWatch}'s look, on its timer thread: replies still wait and the reading
   * thread has started no call since the last look, so the call it runs (or whatever holds it) has
   * taken a tick at least: they leave now. With nothing waiting, the connection leaves the watch.
   */
  void checkStalled() {
    synchronized (lock) {
      if (!unflushed || closed) {
        watched = false;
        path.inlineStalls.leave(this);
        return;
      }
      if (inlineStarts != inlineStartsSeen) {
        inlineStartsSeen = inlineStarts;
        return;
      }
    }
    writeOnIoThread(); // not the reading thread: the writer flushes here
  }

  /**
   * Dispatches waiting requests while the limit allows, then lets reading resume. One thread runs
   * the loop at a time; it decides to stop and gives up the loop in one step under the lock, so a
   * slot freed by another thread is either seen by this loop or finds the loop free and runs it
   * itself (a window between the two once left a pipelining WORKER connection with requests
   * waiting, reading paused and nothing in flight to wake it).
   */
  private void dispatchWaiting() {
    synchronized (lock) {
      if (dispatchingWaiting) {
        return; // the running loop looks at the state again before it stops
      }
      dispatchingWaiting = true;
    }
    boolean resume = false;
    boolean stopped = false;
    try {
      while (true) {
        Call next;
        long check;
        synchronized (lock) {
          if (closing
              || waiting.isEmpty()
              || slots.size() - waiting.size() >= path.maxCallsInFlight) {
            if (readingPaused
                && !closing
                && waiting.isEmpty()
                && slots.size() < path.maxCallsInFlight) {
              readingPaused = false;
              resume = true;
            }
            dispatchingWaiting = false;
            stopped = true;
            break;
          }
          next = waiting.pollFirst();
          check = queued(next, System.nanoTime());
        }
        if (check >= 0) {
          schedule(check);
        }
        dispatch(next);
      }
    } finally {
      if (!stopped) {
        synchronized (lock) {
          dispatchingWaiting = false;
        }
      }
    }
    if (resume) {
      connection.resumeReading();
    }
  }

  // ---- The writer: one at a time, on the IO thread, in reply order ----

  /**
   * Writes what is due, here on the IO thread, or handed over to it if anything is due. A thread
   * that finds a writer at work leaves its reply to it (the writer looks again before it stops),
   * and a completion on another thread hands the writing over to the IO thread once per batch.
   */
  private void writeReady() {
    if (!connection.inIoThread()) {
      boolean handOver;
      synchronized (lock) {
        Call head = slots.peekFirst();
        if (writeHandedOver || ((head == null || !head.done) && !outOfOrderDone)) {
          return; // the writer already handed over will take this one too, or it is not due yet
        }
        // While the server's calls compute (the run gate bounded), its replies come at least a
        // call's CPU apart (80 us or more): a hand-over would find this one reply to write, at
        // the cost of the IO thread's wake-up.
        RunGate gate = path.runGate;
        handOver =
            !(writesFromAnyThread && (slots.size() == 1 || (gate != null && gate.bounded())));
        writeHandedOver = handOver;
      }
      if (handOver) {
        connection.execute(writeTask);
        return;
      }
      // The only reply pending, or one of a computing server's, on an adapter that writes from
      // any thread: no hand-over needed.
    }
    write();
  }

  /** Runs the writer on the IO thread whether or not a reply is due (a drain may close). */
  private void writeOnIoThread() {
    if (connection.inIoThread()) {
      write();
    } else {
      connection.execute(writeTask);
    }
  }

  private void writeHandedOver() {
    synchronized (lock) {
      writeHandedOver = false;
    }
    write();
  }

  /**
   * Writes every reply that is due, flushes once per read batch or hand-over, closes the connection
   * after a last reply or once a drain has answered everything. The connection's IO methods are
   * called outside the lock.
   */
  private void write() {
    synchronized (lock) {
      if (writing) {
        return;
      }
      writing = true;
    }
    boolean answered;
    boolean dispatchWaiting;
    boolean wrote = false;
    while (true) {
      boolean dropNow;
      boolean flush = false;
      boolean closeForDrain = false;
      boolean buffered = draining && connection.hasBufferedRequests();
      synchronized (lock) {
        if (wrote) {
          unflushed = true;
          wrote = false;
        }
        dropNow = closed;
        Call head;
        while ((head = slots.peekFirst()) != null && head.done) {
          slots.pollFirst();
          outbox.add(head);
          if (head.closeAfter && !closed) {
            closed = true; // later requests are never answered
            for (Call call : waiting) {
              call.done = true;
            }
            break;
          }
        }
        if (outOfOrderDone && !closed) {
          takeOutOfOrder();
        }
        if (!outbox.isEmpty()) {
          lastActivityNanos = System.nanoTime();
        } else if (unflushed
            && !dropNow
            && !(inReadBatch && readingThread == Thread.currentThread())) {
          unflushed = false;
          flush = true;
        } else if (draining && !closing && slots.isEmpty() && !buffered && quiet()) {
          closing = true;
          closed = true;
          closeForDrain = true;
        } else {
          writing = false;
          answered = slots.isEmpty() && !closing;
          dispatchWaiting = !waiting.isEmpty() || (readingPaused && !closing);
          break;
        }
      }
      if (flush) {
        connection.flush();
      } else if (closeForDrain) {
        connection.close(false);
      } else {
        wrote = writeOutbox(dropNow);
      }
    }
    if (answered) {
      connection.allAnswered();
    }
    if (dispatchWaiting) {
      dispatchWaiting();
    }
  }

  /**
   * Whether the draining connection has been quiet for {@link #DRAIN_QUIET_NANOS} since its last
   * request, or has refused calls for {@link #DRAIN_REFUSING_NANOS}; if not, makes sure a check
   * runs the writer again when it will have been (a request received meanwhile moves the check on).
   */
  @GuardedBy("lock")
  private boolean quiet() {
    long now = System.nanoTime();
    long left =
        Math.min(
            lastRequestNanos + DRAIN_QUIET_NANOS - now,
            drainStartedNanos + DRAIN_REFUSING_NANOS - now);
    if (left <= 0) {
      return true;
    }
    if (!quietCheckArmed) {
      quietCheckArmed = true;
      CallDeadlines.schedule(quietCheck, left);
    }
    return false;
  }

  private void checkQuiet() {
    synchronized (lock) {
      quietCheckArmed = false;
    }
    writeOnIoThread();
  }

  /**
   * Takes the replies that may overtake earlier calls ({@code Envelope.outOfOrder()}) and are done,
   * wherever they are in the queue.
   */
  @GuardedBy("lock")
  private void takeOutOfOrder() {
    outOfOrderDone = false;
    for (Iterator<Call> it = slots.iterator(); it.hasNext(); ) {
      Call call = it.next();
      if (call.done && !call.closeAfter && call.head == null && call.envelope.outOfOrder()) {
        it.remove();
        outbox.add(call);
      }
    }
  }

  /**
   * Writes the replies taken from the queue; whether any awaits a flush. The writer's: the calls in
   * the outbox were taken under the lock, and no other thread writes their fields any more.
   */
  private boolean writeOutbox(boolean dropNow) {
    boolean wroteAny = false;
    for (Call call; (call = outbox.poll()) != null; ) {
      Object neverDispatched = call.request;
      if (neverDispatched != null) {
        call.request = null; // a waiting request dropped at close: its memory goes back now
        connection.release(neverDispatched);
        continue;
      }
      dropping = dropNow;
      sent = false;
      if (call.head != null) {
        send(call.head, null); // an answer without a call
      } else {
        call.envelope.encode(call.reply, call.unreadable, outbound);
      }
      if (dropNow) {
        if (sent) {
          path.counters.droppedResponses.increment(); // the connection closed during the call
        }
        continue;
      }
      wroteAny |= sent;
      if (call.closeAfter) {
        connection.close(sent); // flushes
        wroteAny = false;
      }
    }
    return wroteAny;
  }

  /** One reply's bytes, as its envelope made them; counted, not written, while dropping. */
  private void send(ByteBuffer head, ByteBuffer body) {
    sent = true;
    if (!dropping) {
      connection.write(head, body);
    }
  }

  // ---- Deadlines: workerStartTimeout and handlerTimeout, one check per connection at a time ----

  /**
   * Notes a request just read, dispatched now ({@code dispatched}) or waiting for the in-flight
   * limit.
   *
   * @return the delay after which the caller must {@link #schedule} a check, or -1 for none
   */
  @GuardedBy("lock")
  private long received(Call call, long now, boolean dispatched) {
    long handlerTimeout = path.handlerTimeoutNanos;
    long delay = handlerTimeout == 0 ? -1 : arm(now, handlerTimeout);
    if (dispatched) {
      long start = queued(call, now);
      if (start >= 0) {
        delay = start; // armed for the start deadline, which is the earlier one
      }
    }
    return delay;
  }

  /**
   * Notes that {@code call} goes to the worker executor now.
   *
   * @return the delay after which the caller must {@link #schedule} a check, or -1 for none
   */
  @GuardedBy("lock")
  private long queued(Call call, long now) {
    if (path.worker == null) {
      return -1; // runs on the thread that delivered it: started at once
    }
    call.queued = true;
    call.queuedAtNanos = now;
    return arm(now, path.startTimeoutNanos);
  }

  /** Arms a check {@code delay} from {@code now} unless one is due no later. */
  @GuardedBy("lock")
  private long arm(long now, long delay) {
    long due = now + delay;
    if (armed && dueNanos - due <= 0) {
      return -1;
    }
    armed = true;
    dueNanos = due;
    return delay;
  }

  /** Runs the deadline check after {@code delayNanos}; outside the lock. */
  private void schedule(long delayNanos) {
    ScheduledFuture<?> f = CallDeadlines.schedule(deadlineCheck, delayNanos);
    synchronized (lock) {
      future = f; // at worst a later one is overwritten: a close then leaves it due, no more
    }
  }

  /** The timer's task: a failed check is a bug, logged, or it would vanish into its future. */
  private void checkDeadlines() {
    try {
      check();
    } catch (RuntimeException | Error e) {
      log.error("Call deadline check failed on connection from {}", connection.remoteAddress(), e);
    }
  }

  /**
   * Answers every call past a deadline and schedules the next check for the earliest deadline still
   * ahead, if any. Calls are read and dispatched in reply order, so each kind's first deadline
   * still ahead ends the search for that kind.
   */
  private void check() {
    long now = System.nanoTime();
    long startTimeout = path.startTimeoutNanos;
    long handlerTimeout = path.handlerTimeoutNanos;
    ArrayDeque<Call> notStarted = null;
    ArrayDeque<Call> timedOut = null;
    long next = CallDeadlines.MAX_NANOS;
    long delay;
    synchronized (lock) {
      if (armed && dueNanos - now <= 0) {
        armed = false; // this is the check that was due
      }
      boolean starts = path.worker != null;
      boolean answers = handlerTimeout != 0 && !closed;
      for (Call call : slots) {
        if (!starts && !answers) {
          break;
        }
        if (call.done || call.payload == null) {
          continue; // answered, or a reply the server made itself
        }
        if (starts && call.queued && call.unclaimed()) {
          long waited = now - call.queuedAtNanos;
          if (waited >= startTimeout) {
            notStarted = add(notStarted, call);
            continue;
          }
          next = Math.min(next, startTimeout - waited);
          starts = false; // the calls after it went to the executor later
        }
        if (answers) {
          long age = now - call.deliveredAtNanos;
          if (age < handlerTimeout) {
            next = Math.min(next, handlerTimeout - age);
            answers = false; // the calls after it were read later
          } else if (expire(call)) {
            timedOut = add(timedOut, call);
          }
        }
      }
      delay = next == CallDeadlines.MAX_NANOS ? -1 : arm(now, next);
    }
    if (delay >= 0) {
      schedule(delay);
    }
    if (notStarted != null) {
      for (Call call : notStarted) {
        if (call.claim(false)) { // else a worker started it meanwhile
          Refusals.notStarted(this, call);
        }
      }
    }
    if (timedOut != null) {
      for (Call call : timedOut) {
        Refusals.timedOut(this, call, call.endExpired()); // the interceptors see it: no lock
      }
    }
  }

  /**
   * On the thread about to run {@code call}, before anything of it runs: whether a deadline of its
   * start passed while it waited (for a worker, or behind the calls ahead of it on its connection's
   * reading thread); if so it is answered {@code not run} ({@link Refusals}) and never runs. Two
   * deadlines bound a start: the caller's ({@code client_timeout}, which this library's pools send
   * on THeader and HTTP connections; counted from when the request was read) and {@code
   * workerStartTimeout}, the server's bound on queue time (counted from when it went to the worker
   * executor; the timer enforces it too, this catches a call the timer has not reached yet). A
   * {@code handlerTimeout} that passes before the start is the timer's, answered as a timeout.
   *
   * @return whether the call must not run: answered here, or already by someone else
   */
  private boolean startsTooLate(Call call) {
    long now = System.nanoTime();
    long clientTimeout = ClientTimeouts.nanos(call.envelope.headers(), false, null);
    long waited = now - call.receivedAtNanos;
    // On the reading thread, the first call of a read batch waited in the socket, out of sight: no
    // sample. Its receivedAtNanos is its deliveredAtNanos.
    boolean sample =
        queueBound != null
            && (path.worker != null || call.receivedAtNanos != call.deliveredAtNanos);
    if (clientTimeout != 0 && waited >= clientTimeout) {
      if (sample) {
        // Its wait is a sample of the queue too: without it, a queue in which every call waits
        // past its caller's deadline gave the bound no sample and was never seen standing, so
        // nothing refused its arrivals while they were cheap to refuse.
        shedsByQueueTime(waited, now);
      }
      if (call.claim(false)) {
        Refusals.pastCallersDeadline(this, call, clientTimeout, waited);
      }
      return true;
    }
    // queued and queuedAtNanos are read without the lock: written under it before the call went
    // to the executor, which publishes them to the thread that runs it.
    if (call.queued && now - call.queuedAtNanos >= path.startTimeoutNanos) {
      if (call.claim(false)) {
        Refusals.notStarted(this, call);
      }
      return true;
    }
    if (sample && shedsByQueueTime(waited, now)) {
      if (call.claim(false)) {
        Refusals.overQueueTarget(this, call, waited, queueBound.describe(now));
      }
      return true;
    }
    call.queuedNanos = waited; // written before the claim that publishes the call as started
    return false;
  }

  /**
   * Gives the queue-time bound the wait of a call about to start, and says whether the bound sheds
   * it. Whether calls wait behind it is asked only after a long wait ({@link #othersWaiting} takes
   * the pool's locks).
   */
  private boolean shedsByQueueTime(long waited, long now) {
    return queueBound.shed(waited, now, waited < queueBound.targetNanos() || othersWaiting());
  }

  /** Whether the calling thread is delivering this connection's read batch. */
  private boolean inReadBatchHere() {
    synchronized (lock) {
      return inReadBatch && readingThread == Thread.currentThread();
    }
  }

  /**
   * {@code LEADER_FOLLOWER}, a call about to run on the thread delivering its read batch while the
   * server's calls compute: the batch takes one turn to run ({@link RunGate}) for all its calls,
   * waiting at most {@link CallPath#turnWaitNanos}; a batch that finds none in that time, or finds
   * so many batches waiting for one that it would not get one in that time ({@link
   * RunGate#waitAhead}), has its calls answered {@code not run}, so that the thread goes back to
   * reading (the connection's later requests wait in its socket, out of the server's sight, for as
   * long as its batch waits).
   *
   * @return whether {@code call} may run; if not, it was answered
   */
  private boolean takeBatchTurn(Call call, RunGate gate) {
    boolean refused;
    synchronized (lock) {
      if (batchTurn != null) {
        return true;
      }
      refused = batchRefusedTurn;
    }
    long wait = Math.min(path.turnWaitNanos, startWaitLeft(call));
    // Behind enough batches that it would not get a turn in time: refused now, without waiting
    // for the turn wait to pass first (a park and a wake-up per refused batch, and a thread held).
    int ahead = refused ? 0 : gate.waiters();
    long waitAhead = gate.waitAhead(ahead);
    boolean tooFarBehind = ahead > 0 && waitAhead >= wait;
    RunGate.Permit turn = refused || tooFarBehind ? null : gate.enter(wait);
    if (turn != null) {
      boolean giveBack;
      synchronized (lock) {
        giveBack = turnsClosed;
        if (!giveBack) {
          batchTurn = turn;
        }
      }
      if (giveBack) {
        gate.leave(turn); // closed meanwhile: the call runs or is refused as a closed connection's
      }
      return true;
    }
    synchronized (lock) {
      batchRefusedTurn = true;
    }
    if (call.claim(false)) {
      if (tooFarBehind) {
        Refusals.turnsAhead(this, call, wait, ahead, waitAhead, gate);
      } else {
        Refusals.noTurn(this, call, wait, gate);
      }
    }
    return false;
  }

  /**
   * How long {@code call} may still wait to start, in nanoseconds, before its caller's deadline or
   * {@code workerStartTimeout} passes (the bounds {@link #startsTooLate} applies once it may
   * start); {@link Long#MAX_VALUE} when neither bounds it.
   */
  private long startWaitLeft(Call call) {
    long now = System.nanoTime();
    long left = Long.MAX_VALUE;
    long clientTimeout = ClientTimeouts.nanos(call.envelope.headers(), false, null);
    if (clientTimeout != 0) {
      left = clientTimeout - (now - call.receivedAtNanos);
    }
    if (call.queued) {
      left = Math.min(left, path.startTimeoutNanos - (now - call.queuedAtNanos));
    }
    return left == Long.MAX_VALUE ? left : Math.max(0, left);
  }

  /**
   * Whether calls wait behind one about to start after a long wait: calls waiting for a permit to
   * run ({@link RunGate}); on the server's own worker pool, whether its queue holds any while most
   * of its workers are busy ({@link QueueTimeBound#standingQueue}; asked only after a long wait: it
   * takes the pool's locks); on another executor, unknown, so {@code true}; on the reading thread,
   * a call that is not the first of its read batch had calls ahead of it, so {@code true}.
   */
  private boolean othersWaiting() {
    RunGate gate = path.runGate;
    if (gate != null && gate.hasWaiters()) {
      return true; // calls wait for a permit to run
    }
    Executor worker = path.worker;
    if (!(worker instanceof ThreadPoolExecutor)) {
      return true;
    }
    ThreadPoolExecutor pool = (ThreadPoolExecutor) worker;
    return QueueTimeBound.standingQueue(
        pool.getQueue().isEmpty(), pool.getActiveCount(), pool.getMaximumPoolSize());
  }

  /**
   * Takes {@code call} from whoever would answer it, for the call timeout. A call not started is
   * given up (and leaves the requests waiting for dispatch); a running one is marked so that its
   * result is discarded, and keeps its request until then.
   *
   * @return whether the caller must now answer the call
   */
  @GuardedBy("lock")
  private boolean expire(Call call) {
    if (call.claim(false)) {
      waiting.remove(call); // if it waits for the in-flight limit: it never runs now
      return true;
    }
    if (!call.timeOut()) {
      return false; // answered, or about to be
    }
    call.lateRequest = call.request; // the handler may still be reading it
    call.request = null;
    return true;
  }

  /** The request a call that timed out while it ran kept, once: its late result has arrived. */
  private Object takeLateRequest(Call call) {
    synchronized (lock) {
      Object late = call.lateRequest;
      call.lateRequest = null;
      return late;
    }
  }

  private static ArrayDeque<Call> add(ArrayDeque<Call> list, Call call) {
    ArrayDeque<Call> l = list != null ? list : new ArrayDeque<>();
    l.add(call);
    return l;
  }

  /**
   * One request's place in its connection's reply order; also its worker task and its completion.
   *
   * <p>Start claim: the worker that runs the task and the deadline check race for the call; {@link
   * #claim} decides it once (started, or given up), so a task an executor runs after the call was
   * answered without it does nothing, and a call that started is never answered twice.
   *
   * <p>Reply claim, with {@code handlerTimeout} on: a started call ends once, either by its own
   * result ({@link #claimReply}) or by the timeout ({@link CallSequencer#expire}); the loser's
   * answer is discarded.
   *
   * <pre>
   *  NOT_STARTED --claim(true)--&gt; STARTED --claimReply()--&gt; ANSWERED
   *       |                          +--timeOut(), handlerTimeout--&gt; TIMED_OUT
   *       +--claim(false): refused, not started in time, or timed out before it started--&gt; GIVEN_UP
   * </pre>
   *
   * <p>Threads: {@link #reply}, {@link #unreadable}, {@link #head}, {@link #done}, {@link
   * #closeAfter}, {@link #queued}, {@link #queuedAtNanos} and {@link #lateRequest} are guarded by
   * the owning sequencer's lock and touched only by {@link CallSequencer} (the writer reads them
   * after taking the call under the lock, when nobody writes them any more); {@link #request}
   * belongs to whoever holds the claim (then to the writer, for a call never dispatched); {@link
   * #payload}, {@link #envelope}, {@link #receivedAtNanos} and {@link #deliveredAtNanos} are set
   * before the call is published; the payload is read only by the claim's holder, and by a refusal,
   * which reads the header of a call that may be running.
   */
  static final class Call implements Runnable, ProcessorInvoker.Completion {

    /** The server whose processor the current thread runs, if any. */
    private static final ThreadLocal<CallPath> RUNNING = new ThreadLocal<>();

    private static final int NOT_STARTED = 0;
    private static final int STARTED = 1;
    private static final int GIVEN_UP = 2;
    private static final int ANSWERED = 3;
    private static final int TIMED_OUT = 4;
    private static final VarHandle STATE;
    private static final VarHandle PERMIT;

    /** {@link #permit} once the call is answered. */
    private static final Object RELEASED = new Object();

    static {
      try {
        STATE = MethodHandles.lookup().findVarHandle(Call.class, "state", int.class);
        PERMIT = MethodHandles.lookup().findVarHandle(Call.class, "permit", Object.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private final CallSequencer calls;
    final ByteBuffer payload;

    /** How the reply leaves: as the request came in (framed, unframed, HTTP). */
    final Envelope envelope;

    /**
     * {@link System#nanoTime()} when the read that brought it began: its queue time and its
     * caller's deadline count from here.
     */
    private final long receivedAtNanos;

    /**
     * {@link System#nanoTime()} when it reached the sequencer, after the calls read before it in
     * its batch ran inline: {@code handlerTimeout} counts from here, so a call is not timed out for
     * the time another call held the reading thread.
     */
    private final long deliveredAtNanos;

    /** How long it waited to start; set by the thread that starts it, before it runs. */
    private long queuedNanos;

    /**
     * This call's measure for the {@link RunGate}, from its start to its reply; {@code null} for
     * most calls. Ended only on the thread that began it ({@link #endMeasure}): another thread may
     * see it or not, and either way leaves it.
     */
    private RunGate.Measure measure;

    /** The adapter's handle, until released; {@code null} after. */
    private Object request;

    /** The reply frame, its length prefix patched; {@code null} when there is none. */
    private ByteBuffer reply;

    /** The request's message could not be read: the envelope may still answer (HTTP's 400). */
    private boolean unreadable;

    /** Bytes sent without a call ({@code CallSequencer.onAnswer}); {@code null} on a call. */
    private ByteBuffer head;

    private boolean done;
    private boolean closeAfter;

    /** Handed to the worker executor, at {@link #queuedAtNanos}. */
    private boolean queued;

    private long queuedAtNanos;

    /**
     * The request of a call that timed out while it ran: released when its late result arrives,
     * never if none does.
     */
    private Object lateRequest;

    /**
     * Its place under the server's adaptive limit ({@link AdaptiveLimit.Permit}), from its dispatch
     * to its answer; {@code null} before and without the limit, {@link #RELEASED} once answered.
     * Taken on the reading thread, given back by whoever answers the call (a worker, the timer),
     * through {@link #PERMIT}: the timer may answer a call before its permit is stored. Typed
     * {@code Object} so that a server without the limit never loads the limit's classes.
     */
    @SuppressWarnings("unused") // through PERMIT
    private volatile Object permit;

    /** The invoker's handle on the running call, for the timeout to end; with handlerTimeout on. */
    private volatile Runnable invocation;

    @SuppressWarnings("unused") // through STATE
    private volatile int state;

    private Call(
        CallSequencer calls,
        ByteBuffer payload,
        Object request,
        Envelope envelope,
        long receivedAtNanos,
        long deliveredAtNanos) {
      this.calls = calls;
      this.payload = payload;
      this.request = request;
      this.envelope = envelope;
      this.receivedAtNanos = receivedAtNanos;
      this.deliveredAtNanos = deliveredAtNanos;
    }

    /**
     * Takes the call for running it ({@code start}) or for answering it without running it; exactly
     * one caller succeeds.
     */
    boolean claim(boolean start) {
      return STATE.compareAndSet(this, NOT_STARTED, start ? STARTED : GIVEN_UP);
    }

    /** Whether neither a worker nor a refusal has claimed the call yet. */
    private boolean unclaimed() {
      return (int) STATE.getVolatile(this) == NOT_STARTED;
    }

    /** Takes a started call for the timeout: whether it was running and not yet answered. */
    private boolean timeOut() {
      return STATE.compareAndSet(this, STARTED, TIMED_OUT);
    }

    /**
     * Ends a call {@link CallSequencer#expire} took: whether it had started, and if so tells its
     * invoker, so that the interceptors see the timeout. Outside the sequencer's lock: they run
     * here.
     */
    private boolean endExpired() {
      if ((int) STATE.getVolatile(this) != TIMED_OUT) {
        return false;
      }
      Runnable running = invocation;
      if (running != null) { // else started() has not run yet, and will see TIMED_OUT
        running.run();
      }
      return true;
    }

    @Override
    public void started(Runnable running) {
      if (calls.path.handlerTimeoutNanos == 0) {
        return;
      }
      invocation = running;
      if ((int) STATE.getVolatile(this) == TIMED_OUT) {
        running.run(); // expired before this: it may not have seen the handle
      }
    }

    @Override
    public boolean claimReply() {
      if (calls.path.handlerTimeoutNanos == 0
          || STATE.compareAndSet(this, STARTED, ANSWERED)
          || (int) STATE.getVolatile(this) != TIMED_OUT) {
        return true; // answered by its own result, or given up by whoever answers it
      }
      Object late = calls.takeLateRequest(this);
      if (late != null) {
        calls.connection.release(late);
      }
      log.debug(
          "Discarded the late result of a call from {}: answered already, its handlerTimeout passed",
          calls.connection.remoteAddress());
      return false;
    }

    @Override
    public void run() {
      RunGate gate = calls.path.runGate;
      if (gate == null || !gate.bounded()) {
        runNow(gate);
        return;
      }
      if (calls.path.worker == null && calls.inReadBatchHere()) {
        if (calls.takeBatchTurn(this, gate)) { // LEADER_FOLLOWER: one turn for the read batch
          runNow(gate);
        }
        return;
      }
      // WORKER: this call, or it is queued; with a permit, this thread runs the queued calls
      // after it for as long as it finds one, without a wake-up between them.
      if (gate.queueFull()) {
        calls.turnQueueFull(this, gate);
        return;
      }
      RunGate.Permit permit = gate.enterOrQueue(this);
      while (permit != null) {
        boolean ran = false;
        try {
          ((Call) permit.call()).runNow(gate);
          ran = true;
        } finally {
          if (!ran) {
            gate.leaveAndResume(permit); // the queued calls go to the pool
          }
        }
        permit = gate.after(permit);
      }
    }

    private void runNow(RunGate gate) {
      if (calls.startsTooLate(this) || !claim(true)) {
        return; // answered already: not started in time, or refused
      }
      CallPath path = calls.path;
      CallPath outer = RUNNING.get();
      RUNNING.set(path);
      WorkerHandOff handOff = path.handOff;
      long startedAt = handOff != null || gate != null ? System.nanoTime() : 0;
      if (gate != null) {
        measure = gate.measure(startedAt);
      }
      try {
        ConnectionEvents events = path.events;
        if (events != null) {
          events.beforeCall(calls.connection.registration()); // never throws
        }
        path.invokerFor(envelope).invoke(payload, this);
      } catch (RuntimeException | Error e) {
        // The invoker promises not to throw; if it did, the request still gets its place back.
        unreadable(e);
      } finally {
        RUNNING.set(outer);
        endMeasure(); // no reply on this thread: an async handler's, or none
        if (handOff != null) {
          handOff.ran(System.nanoTime() - startedAt);
        }
      }
    }

    /**
     * Ends this call's measure for the {@link RunGate}, if it has one and this is the thread that
     * began it: once the handler has made its reply, before the reply goes to the connection, whose
     * lock and writes are not the handler's work.
     */
    private void endMeasure() {
      RunGate.Measure m = measure;
      if (m != null && m.onThisThread()) {
        measure = null;
        m.end();
      }
    }

    @Override
    public void replied(ByteBuffer frame, boolean failed) {
      endMeasure();
      calls.path.counters.completedCalls.increment();
      if (failed) {
        calls.path.counters.failedCalls.increment();
      }
      calls.finish(this, frame, false);
    }

    @Override
    public ServerConnection connection() {
      return calls.connection;
    }

    @Override
    public long connectionId() {
      return calls.id;
    }

    @Override
    public long receivedAtNanos() {
      return receivedAtNanos;
    }

    @Override
    public long queuedNanos() {
      return queuedNanos;
    }

    @Override
    public Map<String, String> requestHeaders() {
      return envelope.headers();
    }

    @Override
    public void deadlinePassed() {
      calls.path.counters.timedOutCalls.increment(); // replied() counts it completed and failed
    }

    @Override
    public void responseHeaders(Map<String, String> headers) {
      envelope.responseHeaders(headers); // published to the writer by finish(), under the lock
    }

    @Override
    public void unreadable(Throwable cause) {
      if (claimReply()) { // else the invoker failed after the call timed out
        Refusals.unreadable(calls, this, cause);
      }
    }

    /**
     * Gives back its permit, once: a call that ran and was answered by its own result is a sample
     * of the server's latency; one the server answered without running it, or whose handlerTimeout
     * passed while it ran, is a drop; an unreadable one says nothing about the load.
     */
    private void releasePermit(boolean unreadable) {
      Object held = PERMIT.getAndSet(this, RELEASED);
      if (held == null || held == RELEASED) {
        return; // none yet: a permit that comes later finds RELEASED and is given back at once
      }
      AdaptiveLimit.Permit p = (AdaptiveLimit.Permit) held;
      int s = (int) STATE.getVolatile(this);
      if (unreadable) {
        p.ignored();
      } else if (s == STARTED || s == ANSWERED) {
        p.answered();
      } else {
        p.overloaded();
      }
    }

    /**
     * Stores the permit the call was dispatched with; {@code false} if the call was answered before
     * (the timer gave it up), and the caller must give the permit back itself.
     */
    private boolean holdPermit(AdaptiveLimit.Permit p) {
      return PERMIT.compareAndSet(this, null, p);
    }

    /** Releases the request of a call that will never run and is not answered. */
    private void abandon() {
      Object held = PERMIT.getAndSet(this, RELEASED);
      if (held != null && held != RELEASED) { // only with the limit: its classes load then
        ((AdaptiveLimit.Permit) held).ignored(); // its server is closing
      }
      Object r = request;
      request = null;
      if (r != null) {
        calls.connection.release(r);
      }
    }
  }

  /**
   * Whether the current thread is running a call of {@code path}'s server (its processor, or a
   * handler called by it): a {@code close()} there must not wait for the drain, which waits for
   * this very call.
   */
  static boolean inCallOf(CallPath path) {
    return Call.RUNNING.get() == path;
  }

  /**
   * Releases the request of a worker task that will never run (its executor was shut down).
   *
   * @param task a task the server's worker executor returned from {@code shutdownNow()}
   */
  static void abandonUnrun(Runnable task) {
    for (Runnable call : WorkerHandOff.callsIn(task)) {
      if (call instanceof Call && ((Call) call).claim(false)) {
        ((Call) call).abandon();
      }
    }
  }
}
