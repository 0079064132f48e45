package io.thriftnio.core.internal.server;

import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The start timeout of one connection's calls ({@code ServerBuilder.workerStartTimeout}): a call
 * the worker executor has not started within it is answered as an overload, so the replies behind
 * it can leave. An executor that drops a task without throwing (a discard policy, say) would
 * otherwise hold every later reply on the connection for ever: replies leave in request order.
 *
 * <p>Cost: no timer per call. One check per connection is scheduled at a time, and only while calls
 * wait for the executor; a check that finds calls still waiting schedules the next for the oldest
 * one's deadline. All connections of all servers share one daemon timer thread, which ends after a
 * minute without checks, so no server has to stop it.
 *
 * <p>Threads: {@link #queued} runs under the sequencer's monitor, which also guards {@link
 * #scheduled}; the check runs on the timer thread. A call given up is claimed first ({@link
 * Call#claim}), so a worker that starts it at the same moment either runs it or does nothing.
 */
final class StartCheck implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(StartCheck.class);

  private final CallSequencer calls;

  /** A check is scheduled. Guarded by calls. */
  private boolean scheduled;

  /** The check last scheduled, for a close to cancel. Guarded by calls. */
  private ScheduledFuture<?> future;

  StartCheck(CallSequencer calls) {
    this.calls = calls;
  }

  /** Created on first use: servers without a worker executor never start the thread. */
  private static final class Timer {
    static final ScheduledThreadPoolExecutor TIMER = newTimer();

    private static ScheduledThreadPoolExecutor newTimer() {
      ScheduledThreadPoolExecutor timer =
          new ScheduledThreadPoolExecutor(
              1,
              task -> {
                Thread t = new Thread(task, "thrift-nio-call-start-timer");
                t.setDaemon(true);
                return t;
              });
      timer.setKeepAliveTime(1, TimeUnit.MINUTES);
      timer.allowCoreThreadTimeOut(true);
      // A closed connection's check leaves the queue at once instead of holding the connection's
      // state until it is due: clients that open a connection per call close thousands a second.
      timer.setRemoveOnCancelPolicy(true);
      return timer;
    }
  }

  /**
   * Notes that {@code call} goes to the worker executor now; whether the caller must {@link
   * #schedule} the check (none is scheduled). Called under the sequencer's monitor.
   */
  boolean queued(Call call, long now) {
    if (calls.path.worker == null) {
      return false; // runs on the thread that delivered it: started at once
    }
    call.queued = true;
    call.queuedAtNanos = now;
    if (scheduled) {
      return false;
    }
    scheduled = true;
    return true;
  }

  /** Runs the check after {@code delayNanos}; outside the sequencer's monitor. */
  void schedule(long delayNanos) {
    ScheduledFuture<?> f = Timer.TIMER.schedule(this, delayNanos, TimeUnit.NANOSECONDS);
    synchronized (calls) {
      future = f; // at worst a later one is overwritten: a close then leaves it due, no more
    }
  }

  /**
   * The connection is gone and dispatches no more: cancels the check unless a call still waits for
   * the executor (the check answers it, which releases its request).
   */
  void connectionClosed() {
    ScheduledFuture<?> f;
    synchronized (calls) {
      for (Call call : calls.slots) {
        if (call.queued && call.unclaimed()) {
          return;
        }
      }
      f = future;
      future = null;
    }
    if (f != null) {
      f.cancel(false);
    }
  }

  @Override
  public void run() {
    try {
      check();
    } catch (RuntimeException | Error e) {
      // A scheduled task's exception would vanish into its future; a failed check is a bug.
      log.error(
          "Worker start check failed on connection from {}", calls.connection.remoteAddress(), e);
    }
  }

  /**
   * Answers every call not started within the timeout and schedules the next check for the oldest
   * call still waiting, if any. Calls go to the executor in reply order, so the first one still in
   * time ends the search.
   */
  private void check() {
    long now = System.nanoTime();
    long timeout = calls.path.startTimeoutNanos;
    ArrayDeque<Call> late = null;
    long next = -1;
    synchronized (calls) {
      for (Call call : calls.slots) {
        if (!call.queued || !call.unclaimed()) {
          continue; // not yet dispatched, or started, or refused
        }
        long waited = now - call.queuedAtNanos;
        if (waited < timeout) {
          next = timeout - waited;
          break;
        }
        if (late == null) {
          late = new ArrayDeque<>();
        }
        late.add(call);
      }
      scheduled = next >= 0;
    }
    if (next >= 0) {
      schedule(next);
    }
    if (late != null) {
      for (Call call : late) {
        if (call.claim(false)) { // else a worker started it meanwhile
          OverloadReplies.notStarted(calls, call);
        }
      }
    }
  }
}
