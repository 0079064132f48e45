package io.thriftnio.core.internal.server;

import io.thriftnio.core.InvokerCall;
import io.thriftnio.core.ProcessorInvoker;
import io.thriftnio.core.wire.Envelope;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.Map;

/**
 * One request's place in its connection's reply order; also its worker task and its completion.
 *
 * <p>Start claim: the worker that runs the task and the deadlines of {@link CallDeadlines} race for
 * the call; {@link #claim} decides it once (started, or given up), so a task an executor runs after
 * the call was answered without it does nothing, and a call that started is never answered twice.
 *
 * <p>Reply claim, with {@code callTimeout} on: a started call ends once, either by its own result
 * ({@link #claimReply}) or by the timeout ({@link #expire}); the loser's answer is discarded.
 *
 * <pre>
 *  NOT_STARTED --claim(true)--&gt; STARTED --claimReply()--&gt; ANSWERED
 *       |                          +--expire(), callTimeout--&gt; TIMED_OUT
 *       +--claim(false): refused, not started in time, or timed out before it started--&gt; GIVEN_UP
 * </pre>
 *
 * <p>Threads: {@link #reply}, {@link #done}, {@link #closeAfter}, {@link #queued} and {@link
 * #lateRequest} are guarded by the sequencer's monitor; {@link #request} belongs to whoever holds
 * the claim (then to the writer, for a call never dispatched); {@link #payload} is read only by the
 * claim's holder, and by the timeout, which reads the header of a call that may be running.
 */
final class Call implements Runnable, ProcessorInvoker.Completion {

  /** The server whose processor the current thread runs, if any. */
  static final ThreadLocal<CallPath> RUNNING = new ThreadLocal<>();

  private static final int NOT_STARTED = 0;
  private static final int STARTED = 1;
  private static final int GIVEN_UP = 2;
  private static final int ANSWERED = 3;
  private static final int TIMED_OUT = 4;
  private static final VarHandle STATE;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(Call.class, "state", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final CallSequencer calls;
  final ByteBuffer payload;

  /** The adapter's handle, until released; {@code null} after. */
  Object request;

  /** {@link System#nanoTime()} when the request was delivered. */
  long receivedAtNanos;

  /** The reply frame, its length prefix patched; {@code null} when there is none. */
  ByteBuffer reply;

  /** How the reply leaves: as the request came in (framed, unframed, HTTP). */
  Envelope envelope = Envelope.FRAMED;

  /** The request's message could not be read: the envelope may still answer (HTTP's 400). */
  boolean unreadable;

  /** Bytes sent without a call ({@code CallSequencer.onAnswer}); {@code null} on a call. */
  ByteBuffer head;

  boolean done;
  boolean closeAfter;

  /** Handed to the worker executor, at {@link #queuedAtNanos}. */
  boolean queued;

  long queuedAtNanos;

  /**
   * The request of a call that timed out while it ran: released when its late result arrives, never
   * if none does.
   */
  Object lateRequest;

  /** The invoker's handle on the running call, for the timeout to end; only with callTimeout on. */
  private volatile InvokerCall invocation;

  @SuppressWarnings("unused") // through STATE
  private volatile int state;

  Call(CallSequencer calls, ByteBuffer payload, Object request) {
    this.calls = calls;
    this.payload = payload;
    this.request = request;
  }

  /**
   * Takes the call for running it ({@code start}) or for answering it without running it; exactly
   * one caller succeeds.
   */
  boolean claim(boolean start) {
    return STATE.compareAndSet(this, NOT_STARTED, start ? STARTED : GIVEN_UP);
  }

  /** Whether neither a worker nor a refusal has claimed the call yet. */
  boolean unclaimed() {
    return (int) STATE.getVolatile(this) == NOT_STARTED;
  }

  /**
   * Takes the call from whoever would answer it, for the call timeout; under the sequencer's
   * monitor. A call not started is given up (and leaves the requests waiting for dispatch); a
   * running one is marked so that its result is discarded, and keeps its request until then.
   *
   * @return whether the caller must now answer the call
   */
  boolean expire() {
    if (claim(false)) {
      calls.waiting.remove(this); // if it waits for the in-flight limit: it never runs now
      return true;
    }
    if (!STATE.compareAndSet(this, STARTED, TIMED_OUT)) {
      return false; // answered, or about to be
    }
    lateRequest = request; // the handler may still be reading it
    request = null;
    return true;
  }

  /**
   * Ends a call {@link #expire} took: whether it had started, and if so tells its invoker, so that
   * the interceptors see the timeout. Outside the sequencer's monitor: they run here.
   */
  boolean endExpired() {
    if ((int) STATE.getVolatile(this) != TIMED_OUT) {
      return false;
    }
    InvokerCall running = invocation;
    if (running != null) { // else started() has not run yet, and will see TIMED_OUT
      running.timeOut();
    }
    return true;
  }

  @Override
  public void started(InvokerCall running) {
    if (calls.path.callTimeoutNanos == 0) {
      return;
    }
    invocation = running;
    if ((int) STATE.getVolatile(this) == TIMED_OUT) {
      running.timeOut(); // expired before this: it may not have seen the handle
    }
  }

  @Override
  public boolean claimReply() {
    if (calls.path.callTimeoutNanos == 0
        || STATE.compareAndSet(this, STARTED, ANSWERED)
        || (int) STATE.getVolatile(this) != TIMED_OUT) {
      return true; // answered by its own result, or given up by whoever answers it
    }
    Object late;
    synchronized (calls) {
      late = lateRequest;
      lateRequest = null;
    }
    if (late != null) {
      calls.connection.release(late);
    }
    CallSequencer.log.debug(
        "Discarded the late result of a call from {}: answered already, its callTimeout passed",
        calls.connection.remoteAddress());
    return false;
  }

  @Override
  public void run() {
    if (!claim(true)) {
      return; // answered already: not started in time, or refused
    }
    CallPath path = calls.path;
    CallPath outer = RUNNING.get();
    RUNNING.set(path);
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
    }
  }

  @Override
  public void replied(ByteBuffer frame, boolean failed) {
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
  public Map<String, String> requestHeaders() {
    return envelope.headers();
  }

  @Override
  public void deadlinePassed() {
    calls.path.counters.timedOutCalls.increment(); // replied() counts it completed and failed
  }

  @Override
  public void responseHeaders(Map<String, String> headers) {
    envelope.responseHeaders(headers); // published to the writer by finish(), under the monitor
  }

  @Override
  public void unreadable(Throwable cause) {
    if (claimReply()) { // else the invoker failed after the call timed out
      Refusals.unreadable(calls, this, cause);
    }
  }

  /** Releases the request of a call that will never run and is not answered. */
  void abandon() {
    Object r = request;
    request = null;
    if (r != null) {
      calls.connection.release(r);
    }
  }

  /**
   * Whether the current thread is running a call of {@code path}'s server (its processor, or a
   * handler called by it): a {@code close()} there must not wait for the drain, which waits for
   * this very call.
   */
  static boolean inCallOf(CallPath path) {
    return RUNNING.get() == path;
  }

  /**
   * Releases the request of a worker task that will never run (its executor was shut down).
   *
   * @param task a task the server's worker executor returned from {@code shutdownNow()}
   */
  static void abandonUnrun(Runnable task) {
    if (task instanceof Call && ((Call) task).claim(false)) {
      ((Call) task).abandon();
    }
  }
}
