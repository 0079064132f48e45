package io.thriftnio.core.internal.server;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The timer that enforces the deadlines of the calls of every connection: {@code
 * ServerBuilder.workerStartTimeout} (a call the worker executor has not started in time is answered
 * as an overload) and {@code ServerBuilder.handlerTimeout} (a call not answered in time after its
 * request was read is answered as timed out), both by {@link Refusals}. Replies leave in request
 * order, so without them one call that never starts (an executor that drops a task) or never ends
 * (a handler that blocks, a callback never called) would hold every later reply of the connection
 * for ever. Stateless: each {@link CallSequencer} keeps its own deadlines and runs its own check.
 *
 * <p>Cost: no timer per call. One check per connection is pending at a time (a stale one may fire
 * once more, harmlessly), and only while a deadline is armed: while calls wait for the executor,
 * or, with {@code handlerTimeout} on, while calls are unanswered. A check schedules the next for
 * the earliest deadline it finds. With {@code handlerTimeout} off (its default) and no worker
 * executor, nothing is ever scheduled. The {@link InlineStallWatch} of a {@code LEADER_FOLLOWER}
 * server ticks on it too, while replies of a read batch wait. All connections of all servers share
 * one daemon timer thread, which ends after a minute without checks, so no server has to stop it.
 */
final class CallDeadlines {

  /** The longest delay used, about 73 years: deadlines stay comparable by subtraction. */
  static final long MAX_NANOS = Long.MAX_VALUE / 4;

  private CallDeadlines() {}

  /** {@code timeout} in nanoseconds, at most about 73 years. */
  static long nanos(Duration timeout) {
    return timeout.compareTo(Duration.ofNanos(MAX_NANOS)) >= 0 ? MAX_NANOS : timeout.toNanos();
  }

  /** Runs {@code check} on the timer thread after {@code delayNanos}. */
  static ScheduledFuture<?> schedule(Runnable check, long delayNanos) {
    return Timer.TIMER.schedule(check, delayNanos, TimeUnit.NANOSECONDS);
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
}
