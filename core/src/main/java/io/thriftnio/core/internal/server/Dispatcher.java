package io.thriftnio.core.internal.server;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Starts a connection's calls for its {@link CallSequencer}: on the reading thread or on the
 * server's worker executor, and the requests that waited for the in-flight limit, in order. Its
 * state is guarded by the sequencer's lock, as the {@link ReplyWriter}'s is.
 */
final class Dispatcher {
  private final CallSequencer calls;

  /** Guarded by {@code calls}: whether a thread runs {@link #dispatchWaiting}'s loop. */
  private boolean dispatchingWaiting;

  Dispatcher(CallSequencer calls) {
    this.calls = calls;
  }

  void dispatch(Call slot) {
    CallPath path = calls.path;
    Executor worker = path.worker;
    if (worker == null) {
      if (path.inlineCallsMayBlock) {
        flushBeforeInlineCall();
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
    try {
      worker.execute(slot);
    } catch (RejectedExecutionException e) {
      if (slot.claim(false)) { // else it ran, or was given up while execute() blocked
        Refusals.refused(calls, slot, e);
      }
    }
  }

  /**
   * Sends the replies written so far in this read batch before a call that may block the reading
   * thread: a fast call's reply must not wait for a slow call read after it.
   */
  private void flushBeforeInlineCall() {
    synchronized (calls) {
      if (!calls.unflushed) {
        return;
      }
      calls.inReadBatch = false; // the writer flushes on the reading thread only outside a batch
    }
    calls.writeReady();
    synchronized (calls) {
      calls.inReadBatch = true;
    }
  }

  /**
   * Dispatches waiting requests while the limit allows, then lets reading resume. One thread runs
   * the loop at a time; it decides to stop and gives up the loop in one step under the lock, so a
   * slot freed by another thread is either seen by this loop or finds the loop free and runs it
   * itself (a window between the two once left a pipelining WORKER connection with requests
   * waiting, reading paused and nothing in flight to wake it).
   */
  void dispatchWaiting() {
    synchronized (calls) {
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
        synchronized (calls) {
          if (calls.closing
              || calls.waiting.isEmpty()
              || calls.slots.size() - calls.waiting.size() >= calls.path.maxCallsInFlight) {
            if (calls.readingPaused
                && !calls.draining
                && !calls.closing
                && calls.waiting.isEmpty()
                && calls.slots.size() < calls.path.maxCallsInFlight) {
              calls.readingPaused = false;
              resume = true;
            }
            dispatchingWaiting = false;
            stopped = true;
            break;
          }
          next = calls.waiting.pollFirst();
          check = calls.deadlines.queued(next, System.nanoTime());
        }
        if (check >= 0) {
          calls.deadlines.schedule(check);
        }
        dispatch(next);
      }
    } finally {
      if (!stopped) {
        synchronized (calls) {
          dispatchingWaiting = false;
        }
      }
    }
    if (resume) {
      calls.connection.resumeReading();
    }
  }
}
