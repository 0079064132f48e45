package io.thriftnio.core.internal.client;

import io.thriftnio.core.internal.client.Messages.Call;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

/**
 * The call timeouts of one {@link PipelinedCalls}, kept by one scheduled task at a time instead of
 * one per call. The task is armed for the earliest deadline among the calls waiting; when it runs,
 * its owner times out every call whose deadline has passed ({@link #sweep}) and arms it again for
 * the next. An answered call cancels nothing: on an event loop each cancel removes a task from the
 * loop's scheduled-task heap, which was 8% of a pipelined client's CPU (32 calls in flight on each
 * of 8 connections). While calls keep coming, the task runs about once per call timeout.
 *
 * <p>Guarded by the owner's lock; the task itself runs without it and the owner takes it.
 */
final class CallTimers {
  private final ScheduledExecutorService timer;
  private final LongConsumer check;
  private ScheduledFuture<?> armed;
  private long armedFor;
  private long generation;

  /**
   * @param timer runs the task
   * @param check the owner's sweep, given the generation of the task that runs it
   */
  CallTimers(ScheduledExecutorService timer, LongConsumer check) {
    this.timer = timer;
    this.check = check;
  }

  /**
   * A call is due at {@code deadline} ({@code System.nanoTime()}): arms the task for it unless it
   * is armed for that time or earlier.
   *
   * @throws java.util.concurrent.RejectedExecutionException if the timer is shut down
   */
  void due(long deadline) {
    if (armed != null && armedFor - deadline <= 0) {
      return;
    }
    long g = ++generation;
    ScheduledFuture<?> replaced = armed;
    armed =
        timer.schedule(() -> check.accept(g), deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
    armedFor = deadline;
    if (replaced != null) {
      replaced.cancel(false);
    }
  }

  /**
   * The task of {@code generation} runs: whether it is the one armed (a task replaced by an earlier
   * one may still run, and then does nothing); if so it is no longer armed.
   */
  boolean fired(long generation) {
    if (generation != this.generation || armed == null) {
      return false;
    }
    armed = null;
    return true;
  }

  /** The table closed: the armed task, if any, will not run. */
  void cancel() {
    if (armed != null) {
      armed.cancel(false);
      armed = null;
    }
  }

  /**
   * Adds to {@code due} the calls of {@code waiting} whose deadline has passed at {@code now}, in
   * order, and arms the task for the earliest deadline of the others, if any.
   *
   * @throws java.util.concurrent.RejectedExecutionException if the timer is shut down
   */
  void sweep(Iterable<Call> waiting, long now, List<Call> due) {
    boolean more = false;
    long next = 0;
    for (Call c : waiting) {
      if (c.settled || c.abandoned) {
        continue;
      }
      if (now - c.deadline >= 0) {
        due.add(c);
      } else if (!more || c.deadline - next < 0) {
        next = c.deadline;
        more = true;
      }
    }
    if (more) {
      due(next);
    }
  }

  /**
   * The calls that time out with {@code call}, written and waiting: every written call ahead of it
   * in {@code order} whose deadline has passed at {@code now} and that still waits, then {@code
   * call}. Timers fire on any thread of the IO library in any order, so an earlier call whose timer
   * has not run yet goes first. Reads the calls, changes nothing.
   *
   * @param order the calls that may hold up {@code call}'s reply, {@code call} among them
   * @return the calls in order, {@code call} last, and whether the first waited behind a call that
   *     had timed out already
   */
  static Overdue overdueUpTo(Iterable<Call> order, Call call, long now) {
    List<Call> overdue = new ArrayList<>(1);
    boolean behind = false;
    for (Call c : order) {
      if (c == call) {
        break;
      }
      if (c.abandoned) {
        behind = true;
      } else if (c.written && !c.settled && now - c.deadline >= 0) {
        overdue.add(c);
      }
    }
    overdue.add(call);
    return new Overdue(overdue, behind);
  }

  /**
   * The calls that time out together, in order, and whether the first waited behind an abandoned
   * call (each later one waits behind the first).
   */
  record Overdue(List<Call> calls, boolean firstBehind) {}
}
