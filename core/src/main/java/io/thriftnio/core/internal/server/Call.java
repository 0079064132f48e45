package io.thriftnio.core.internal.server;

import io.thriftnio.core.ProcessorInvoker;
import io.thriftnio.core.wire.Envelope;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * One request's place in its connection's reply order; also its worker task and its completion.
 *
 * <p>Start claim: the worker that runs the task and the start timeout of {@link CallSequencer} race
 * for the call; {@link #claim} decides it once (started, or given up), so a task an executor runs
 * after the call was answered as not started does nothing, and a call that started is never
 * answered twice.
 *
 * <p>Threads: {@link #reply}, {@link #done}, {@link #closeAfter} and {@link #queued} are guarded by
 * the sequencer's monitor; {@link #request} belongs to whoever holds the claim (then to the writer,
 * for a call never dispatched); {@link #payload} is read only by the claim's holder.
 */
final class Call implements Runnable, ProcessorInvoker.Completion {

  /** The server whose processor the current thread runs, if any. */
  static final ThreadLocal<CallPath> RUNNING = new ThreadLocal<>();

  private static final int NOT_STARTED = 0;
  private static final int STARTED = 1;
  private static final int GIVEN_UP = 2;
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
      path.invoker.invoke(payload, this);
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
  public void unreadable(Throwable cause) {
    calls.path.counters.badFrames.increment();
    CallSequencer.log.warn(
        "Closing connection from {}: request message header unreadable ({})",
        calls.connection.remoteAddress(),
        cause.toString());
    calls.finish(this, null, true);
  }

  /** Releases the request of a call that will never run and is not answered. */
  void abandon() {
    Object r = request;
    request = null;
    if (r != null) {
      calls.connection.release(r);
    }
  }
}
