package io.thriftnio.core.internal.client;

import io.thriftnio.core.internal.client.Messages.Call;
import io.thriftnio.core.util.internal.MessageHeaders;
import java.nio.ByteBuffer;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The replies a pipelined connection still owes for calls that timed out after they were written,
 * and the rule that tells a stuck connection from a slow one: <em>no reply at all for {@code
 * lateReplyTimeout} while a reply is owed</em>. Any reply restarts that wait, so a server that is
 * slow on one call but answers keeps its connection.
 *
 * <p>Guarded by the lock of the {@link PipelinedCalls} that owns it; its timer calls {@code check}
 * on the timer thread, which takes that lock and asks {@link #onTimer}.
 */
final class LateReplies {
  /** Runs a task once after a delay; may throw {@link RejectedExecutionException}. */
  interface Timer {
    void schedule(Runnable task, long delayNanos);

    static Timer of(ScheduledExecutorService executor) {
      return (task, delayNanos) -> executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    }
  }

  private final long timeoutNanos;
  private final Timer timer;
  private final Runnable check;
  private int owed;
  private long quietSince; // when the last reply arrived, or the first call was abandoned
  private boolean armed;

  /**
   * @param timeoutNanos {@code lateReplyTimeout}
   * @param timer runs {@code check}
   * @param check takes the owner's lock and calls {@link #onTimer}
   */
  LateReplies(long timeoutNanos, Timer timer, Runnable check) {
    this.timeoutNanos = timeoutNanos;
    this.timer = timer;
    this.check = check;
  }

  /** Replies owed now. */
  int owed() {
    return owed;
  }

  /** A written call timed out: its reply is owed. */
  void owe(long now) {
    if (owed++ == 0) {
      quietSince = now;
    }
    if (!armed) {
      arm(timeoutNanos);
    }
  }

  /** A reply arrived; {@code late}: it answers a call that timed out. */
  void replied(boolean late, long now) {
    if (late) {
      owed--;
    }
    quietSince = now;
  }

  /** Nothing is owed any more: the table closed and took every call. */
  void clear() {
    owed = 0;
  }

  /**
   * The timer fired: why the connection is stuck, for the close, or {@code null} when it is not
   * (and the timer is armed again while a reply is owed).
   */
  String onTimer(long now) {
    armed = false;
    if (owed == 0) {
      return null;
    }
    long quiet = now - quietSince;
    if (quiet >= timeoutNanos) {
      return "no reply for "
          + TimeUnit.NANOSECONDS.toMillis(quiet)
          + " ms while "
          + owed
          + " timed-out calls owed theirs (lateReplyTimeout "
          + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
          + " ms)";
    }
    arm(timeoutNanos - quiet);
    return null;
  }

  /**
   * Why the late reply {@code payload} (null: an HTTP failure status) cannot answer the timed-out
   * {@code call}, whose slot it takes: a readable sequence id other than the one sent means the
   * connection's order is broken. {@code null} when it fits, or when either id is unreadable.
   */
  static String outOfOrder(Call call, ByteBuffer payload) {
    long got = payload == null ? MessageHeaders.UNKNOWN_SEQ_ID : MessageHeaders.seqId(payload);
    if (call.seqId == MessageHeaders.UNKNOWN_SEQ_ID
        || got == MessageHeaders.UNKNOWN_SEQ_ID
        || got == call.seqId) {
      return null;
    }
    return "the late reply to a timed-out call carries seqid "
        + got
        + ", not "
        + call.seqId
        + ": replies are out of order";
  }

  private void arm(long nanos) {
    try {
      timer.schedule(check, nanos);
      armed = true;
    } catch (RejectedExecutionException e) {
      // The client resources are closing: their close ends this connection, stuck or not.
    }
  }
}
