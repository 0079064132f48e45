package io.thriftnio.core.internal.server;

import io.thriftnio.core.CloseCause;
import io.thriftnio.core.ProcessorInvoker;
import io.thriftnio.core.wire.Envelope;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The calls of one server connection: dispatches each request, answers them in request order,
 * bounds the calls in flight, refuses calls the worker executor cannot take or does not start in
 * time, and closes the connection after a bad request or once a drain has answered everything.
 * Transport-neutral: the IO adapter delivers one request message at a time and implements {@link
 * ServerConnection}.
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
 * <p>Threads: {@link #onRequest}, {@link #readComplete} and {@link #onBadFrame} come from the
 * thread reading the connection, one at a time; calls complete on any thread. State is guarded by
 * this object's monitor, held only for bookkeeping: the processor never runs under it, and replies
 * are written outside it by one writer at a time, which takes every reply that is ready in one go.
 * Replies written while a read batch is delivered are flushed once at {@link #readComplete};
 * replies completed elsewhere are handed to the IO thread once per batch ({@link
 * ServerConnection#execute}) and flushed there.
 *
 * <p>Pieces: this class takes requests in and dispatches them ({@link Call} is each one's place in
 * the order, its worker task and its completion); {@link ReplyWriter} writes the replies that are
 * due, flushes and closes; {@link Refusals} answers every call the server ends itself (refused or
 * not started by the worker executor, found unanswered {@code callTimeout} after its request was
 * read by {@link CallDeadlines}, {@link #notRun}, an unreadable header): answered, or the
 * connection closes.
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
   * This connection's number, for {@code ServerCallContext.connectionId()}: its registration's, or
   * a new one when it has none (a handler in a pipeline of the user's own).
   */
  final long id;

  final CallPath path;
  final ServerConnection connection;
  private final ReplyWriter writer;
  final CallDeadlines deadlines = new CallDeadlines(this);
  private final Dispatcher dispatcher = new Dispatcher(this);

  // Guarded by this; the writer's fields too.
  /** Requests received whose replies have not been written, in order; includes waiting ones. */
  final ArrayDeque<Call> slots = new ArrayDeque<>();

  /** Requests received while maxCallsInFlight calls were in flight, not yet dispatched. */
  final ArrayDeque<Call> waiting = new ArrayDeque<>();

  /**
   * A call whose envelope allows {@link Envelope#outOfOrder() out-of-order} replies is done while
   * an earlier one is not: the writer looks past the head of {@link #slots}.
   */
  boolean outOfOrderDone;

  boolean unflushed;
  boolean inReadBatch;
  Thread readingThread;
  volatile boolean draining;

  /** A close is decided: requests delivered from now on are dropped. */
  boolean closing;

  /** Nothing more is written: the connection is gone, or its last reply has been written. */
  boolean closed;

  /**
   * Past its {@code maxConnectionAge}: the next reply that can say the connection closes after it
   * (HTTP's {@code Connection: close}) says so, and the connection closes once it is sent.
   */
  private boolean aged;

  volatile boolean readingPaused;
  volatile long lastActivityNanos = System.nanoTime();

  CallSequencer(CallPath path, ServerConnection connection) {
    this.path = path;
    this.connection = connection;
    this.writer = new ReplyWriter(this, connection);
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
    long check = -1;
    synchronized (this) {
      if (closing) {
        slot = null; // after a bad request or a close: nothing more is served
        dispatch = false;
      } else {
        inReadBatch = true;
        readingThread = Thread.currentThread();
        long now = System.nanoTime();
        lastActivityNanos = now;
        slot = new Call(this, payload, request);
        slot.envelope = envelope;
        slot.receivedAtNanos = now;
        slots.add(slot);
        dispatch = waiting.isEmpty() && slots.size() <= path.maxCallsInFlight;
        check = deadlines.received(slot, now, dispatch);
        if (!dispatch) {
          waiting.add(slot);
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
      deadlines.schedule(check); // first: SAME_THREAD runs the call inline, and it may never end
    }
    if (dispatch) {
      dispatcher.dispatch(slot);
    }
    // During a drain, requests already read are still delivered and answered.
    boolean buffered = draining && connection.hasBufferedRequests();
    synchronized (this) {
      boolean full = !waiting.isEmpty() || slots.size() >= path.maxCallsInFlight;
      readingPaused = closing || full || (draining && !buffered);
      return !readingPaused;
    }
  }

  /**
   * Sends bytes without a call, after every earlier reply: what the adapter's decoder answers on
   * its own ({@code Decoded.ANSWER}: an HTTP refusal, {@code 100 Continue}).
   *
   * @param answer the whole answer; {@code null} for none (a probe connection's close, say)
   * @param refusal whether it refuses a request (counted in {@code badFrames})
   * @param closeAfter whether the connection closes after it; nothing later is read or answered
   */
  public void onAnswer(ByteBuffer answer, boolean refusal, boolean closeAfter) {
    if (refusal) {
      path.counters.badFrames.increment();
    }
    synchronized (this) {
      if (closing) {
        return;
      }
      if (closeAfter) {
        closing = true;
        readingPaused = true;
      }
      Call last = new Call(this, null, null);
      last.done = true;
      last.head = answer;
      last.closeAfter = closeAfter;
      slots.add(last);
    }
    writer.writeReady();
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
    synchronized (this) {
      inReadBatch = false;
      if (!unflushed) {
        return;
      }
    }
    writer.writeReady();
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
    ByteBuffer reply =
        header == null
            ? null
            : ErrorReplies.applicationException(
                header,
                TApplicationException.PROTOCOL_ERROR,
                "request " + header.name + " rejected: " + reason,
                path.invokerFor(envelope != null ? envelope : Envelope.FRAMED)
                    .outputProtocolFactory(),
                path.invoker.maxFrameSize());
    synchronized (this) {
      if (closing) {
        return;
      }
      closing = true;
      readingPaused = true;
      Call last = new Call(this, null, null);
      last.done = true;
      last.envelope = envelope != null ? envelope : Envelope.FRAMED;
      last.reply = reply;
      last.closeAfter = true;
      slots.add(last);
    }
    if (reply != null) {
      path.counters.failedCalls.increment();
    }
    writer.writeReady();
  }

  /**
   * The server is closing: stop reading, answer the requests delivered so far, then close. Closes
   * at once if none is pending. Idempotent.
   */
  public void startDrain() {
    synchronized (this) {
      if (draining) {
        return;
      }
      draining = true;
      readingPaused = true;
    }
    // The writer closes the connection once nothing is pending: it alone may call the IO methods.
    writer.writeOnIoThread();
  }

  /**
   * The connection is gone. Requests not yet dispatched are released; calls running release their
   * own requests when they complete, and their replies are counted as dropped.
   */
  public void onClosed() {
    Call[] neverDispatched;
    synchronized (this) {
      closing = true;
      closed = true;
      readingPaused = true;
      neverDispatched = waiting.toArray(new Call[0]);
      slots.removeAll(waiting);
      waiting.clear();
    }
    for (Call slot : neverDispatched) {
      slot.abandon(); // no reply, nothing dropped
    }
    deadlines.connectionClosed();
    writer.writeReady();
  }

  /**
   * The connection is past its {@code maxConnectionAge} (the transport's timeouts found it so): the
   * next reply that is the only call pending and whose envelope can tell the peer ({@link
   * Envelope#closeAfterReply()}) closes the connection after it, as {@code CloseCause.AGED}.
   */
  public synchronized void markAged() {
    aged = true;
  }

  /** Calls received and not yet answered. */
  public synchronized int pendingCalls() {
    return slots.size();
  }

  /** Whether a close is decided (a bad request, a drain that is over, the connection gone). */
  public synchronized boolean isClosing() {
    return closing;
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

  /** Dispatches waiting requests while the limit allows, then lets reading resume. */
  void dispatchWaiting() {
    dispatcher.dispatchWaiting();
  }

  /** Writes what is ready; the dispatcher's flush before an inline call. */
  void writeReady() {
    writer.writeReady();
  }

  /** Records a call's outcome, on the thread that completed it, and writes what is ready. */
  void finish(Call slot, ByteBuffer reply, boolean closeAfter) {
    Object request = slot.request;
    slot.request = null;
    if (request != null) {
      connection.release(request); // the invoker has read the request for the last time
    }
    boolean unreadable = closeAfter;
    closeAfter |= slot.envelope.closesConnection();
    boolean agedClose = false;
    synchronized (this) {
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
    writer.writeReady();
  }
}
