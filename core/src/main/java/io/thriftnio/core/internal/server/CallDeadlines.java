package io.thriftnio.core.internal.server;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The deadlines of one connection's calls, enforced by one timer check: {@code
 * ServerBuilder.workerStartTimeout} (a call the worker executor has not started in time is answered
 * as an overload, by {@link Refusals}) and {@code ServerBuilder.callTimeout} (a call not answered
 * in time after its request was read is answered as timed out, by {@link Refusals}). Replies leave
 * in request order, so without them one call that never starts (an executor that drops a task) or
 * never ends (a handler that blocks, a callback never called) would hold every later reply of the
 * connection for ever.
 *
 * <p>Cost: no timer per call. One check per connection is pending at a time (a stale one may fire
 * once more, harmlessly), and only while a deadline is armed: while calls wait for the executor,
 * or, with {@code callTimeout} on, while calls are unanswered. A check schedules the next for the
 * earliest deadline it finds; calls are read and dispatched in reply order, so each kind's first
 * deadline still ahead ends the search for that kind. With {@code callTimeout} off (its default)
 * and no worker executor, nothing is ever scheduled. All connections of all servers share one
 * daemon timer thread, which ends after a minute without checks, so no server has to stop it.
 *
 * <p>Threads: {@link #received} and {@link #queued} run under the sequencer's monitor, which also
 * guards {@link #armed} and {@link #dueNanos}; the check runs on the timer thread. A call is
 * claimed before it is answered ({@link Call#claim}, {@link Call#expire}), so a worker that starts
 * it, or a handler that completes it, at the same moment either wins or does nothing.
 */
final class CallDeadlines implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(CallDeadlines.class);

  /** The longest delay used, about 73 years: deadlines stay comparable by subtraction. */
  private static final long MAX_NANOS = Long.MAX_VALUE / 4;

  private final CallSequencer calls;

  /** A check is scheduled for {@link #dueNanos}. Guarded by calls. */
  private boolean armed;

  private long dueNanos;

  /** The check last scheduled, for a close to cancel. Guarded by calls. */
  private ScheduledFuture<?> future;

  CallDeadlines(CallSequencer calls) {
    this.calls = calls;
  }

  /** {@code timeout} in nanoseconds, at most about 73 years. */
  static long nanos(Duration timeout) {
    return timeout.compareTo(Duration.ofNanos(MAX_NANOS)) >= 0 ? MAX_NANOS : timeout.toNanos();
  }

  /** Created on first use: servers without a deadline to enforce never start the thread. */
  private static final class Timer {
    static final ScheduledThreadPoolExecutor TIMER = newTimer();

    private static ScheduledThreadPoolExecutor newTimer() {
      ScheduledThreadPoolExecutor timer =
          new ScheduledThreadPoolExecutor(
              1,
              task -> {
                Thread t = new Thread(task, "thrift-nio-call-timer");
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
   * Notes a request just read, dispatched now ({@code dispatched}) or waiting for the in-flight
   * limit. Called under the sequencer's monitor.
   *
   * @return the delay after which the caller must {@link #schedule} a check, or -1 for none
   */
  long received(Call call, long now, boolean dispatched) {
    long callTimeout = calls.path.callTimeoutNanos;
    long delay = callTimeout == 0 ? -1 : arm(now, callTimeout);
    if (dispatched) {
      long start = queued(call, now);
      if (start >= 0) {
        delay = start; // armed for the start deadline, which is the earlier one
      }
    }
    return delay;
  }

  /**
   * Notes that {@code call} goes to the worker executor now. Called under the sequencer's monitor.
   *
   * @return the delay after which the caller must {@link #schedule} a check, or -1 for none
   */
  long queued(Call call, long now) {
    if (calls.path.worker == null) {
      return -1; // runs on the thread that delivered it: started at once
    }
    call.queued = true;
    call.queuedAtNanos = now;
    return arm(now, calls.path.startTimeoutNanos);
  }

  /** Arms a check {@code delay} from {@code now} unless one is due no later. Under the monitor. */
  private long arm(long now, long delay) {
    long due = now + delay;
    if (armed && dueNanos - due <= 0) {
      return -1;
    }
    armed = true;
    dueNanos = due;
    return delay;
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
   * the executor (the check answers it, which releases its request). Calls that run are not timed
   * out any more: their replies would be dropped.
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
      log.error("Call deadline check failed on connection from {}", remote(), e);
    }
  }

  private Object remote() {
    return calls.connection.remoteAddress();
  }

  /**
   * Answers every call past a deadline and schedules the next check for the earliest deadline still
   * ahead, if any.
   */
  private void check() {
    long now = System.nanoTime();
    CallPath path = calls.path;
    long startTimeout = path.startTimeoutNanos;
    long callTimeout = path.callTimeoutNanos;
    ArrayDeque<Call> notStarted = null;
    ArrayDeque<Call> timedOut = null;
    long next = MAX_NANOS;
    long delay;
    synchronized (calls) {
      if (armed && dueNanos - now <= 0) {
        armed = false; // this is the check that was due
      }
      boolean starts = path.worker != null;
      boolean answers = callTimeout != 0 && !calls.closed;
      for (Call call : calls.slots) {
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
          long age = now - call.receivedAtNanos;
          if (age < callTimeout) {
            next = Math.min(next, callTimeout - age);
            answers = false; // the calls after it were read later
          } else if (call.expire()) {
            timedOut = add(timedOut, call);
          }
        }
      }
      delay = next == MAX_NANOS ? -1 : arm(now, next);
    }
    if (delay >= 0) {
      schedule(delay);
    }
    if (notStarted != null) {
      for (Call call : notStarted) {
        if (call.claim(false)) { // else a worker started it meanwhile
          Refusals.notStarted(calls, call);
        }
      }
    }
    if (timedOut != null) {
      for (Call call : timedOut) {
        Refusals.timedOut(calls, call, call.endExpired());
      }
    }
  }

  private static ArrayDeque<Call> add(ArrayDeque<Call> list, Call call) {
    ArrayDeque<Call> l = list != null ? list : new ArrayDeque<>();
    l.add(call);
    return l;
  }
}
