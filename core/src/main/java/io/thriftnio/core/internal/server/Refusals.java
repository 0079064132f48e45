package io.thriftnio.core.internal.server;

import io.thriftnio.core.NotRun;
import io.thriftnio.core.internal.AdaptiveLimit;
import io.thriftnio.core.internal.server.CallSequencer.Call;
import io.thriftnio.core.util.internal.ClientTimeouts;
import io.thriftnio.core.util.internal.ServerCounters;
import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one path by which the server answers a call it ends itself instead of with the handler's
 * result: an overload (the worker executor refused the call, or did not start it within {@code
 * workerStartTimeout}, or not before its caller's deadline), a {@code handlerTimeout}, a refusal of
 * the caller's choosing ({@link CallSequencer#notRun}: a drain, say), and a request whose header
 * cannot be read.
 *
 * <p>The rule it owns: <b>a two-way call is answered, or its connection closes</b>. The answer is
 * {@code TApplicationException(INTERNAL_ERROR)} in the caller's protocol; if it cannot be encoded
 * (a method name that makes it larger than {@code maxFrameSize}, a protocol that fails to write),
 * or the request's header cannot be read (no sequence id to answer), the connection closes after
 * the replies ahead of it, so the caller sees its connection end instead of waiting on one that
 * stays open. A oneway call has nothing to answer. A call whose handler did not run is answered
 * with a {@link NotRun} message ({@code not run: ...}), which a pool may send elsewhere whatever
 * the method; a call that had started and timed out is not.
 *
 * <p>Counting and logging: an overload counts in {@code overloadedCalls} and is logged at the 1st,
 * 2nd, 4th, 8th ... occurrence per server (under overload every call would log); a timeout counts
 * in {@code timedOutCalls} and {@code failedCalls} (and {@code completedCalls} if the processor had
 * started it: it ran, and this is how it ended) and is logged at WARN, one line per call: it is the
 * application's own bound being hit, not a flood; an unreadable header counts in {@code badFrames}
 * and is logged at WARN. {@link CallSequencer#notRun} counts nothing and logs at DEBUG: its caller
 * does both as its own case needs.
 *
 * <p>Every method takes a call its caller has claimed ({@link Call#claim}, or the timeout), runs
 * outside the sequencer's lock, and ends by handing the outcome to {@link CallSequencer#finish}.
 */
final class Refusals {
  private static final Logger log = LoggerFactory.getLogger(Refusals.class);

  private Refusals() {}

  /** The worker executor threw {@code RejectedExecutionException} for {@code call}. */
  static void refused(CallSequencer calls, Call call, RuntimeException cause) {
    overloaded(calls, call, "refused, the worker executor is full", cause);
  }

  /** The worker executor has not started {@code call} within the start timeout. */
  static void notStarted(CallSequencer calls, Call call) {
    long millis = TimeUnit.NANOSECONDS.toMillis(calls.path.startTimeoutNanos);
    overloaded(
        calls,
        call,
        "not started within " + millis + " ms (workerStartTimeout) by the worker executor",
        null);
  }

  /**
   * {@code call} waited past its caller's deadline before it could start: its caller has given up.
   *
   * @param timeoutNanos the caller's {@code client_timeout}
   * @param waitedNanos how long it waited since its request was read
   */
  static void pastCallersDeadline(
      CallSequencer calls, Call call, long timeoutNanos, long waitedNanos) {
    overloaded(
        calls,
        call,
        "not started within the caller's deadline ("
            + ClientTimeouts.HEADER
            + " "
            + describe(timeoutNanos)
            + ", waited "
            + TimeUnit.NANOSECONDS.toMillis(waitedNanos)
            + " ms)",
        null);
  }

  /**
   * {@code call} waited {@code waitedNanos} to start while the server (or, on the reading thread's
   * strategies, its connection) was overloaded ({@link QueueTimeBound}).
   */
  static void overQueueTarget(CallSequencer calls, Call call, long waitedNanos, String bound) {
    overloaded(
        calls,
        call,
        "not started: waited " + TimeUnit.NANOSECONDS.toMillis(waitedNanos) + " ms, " + bound,
        null);
  }

  /**
   * {@code call} arrived while the calls waiting for a worker stood past the queue-time target
   * ({@link QueueTimeBound#refusesArrivals}): refused where it was dispatched, before it queued.
   */
  static void queueStands(CallSequencer calls, Call call, String bound) {
    overloaded(calls, call, "not queued: the calls before it waited " + bound, null);
  }

  /**
   * {@code call}'s read batch found no turn to run within {@code waitedNanos} while the server's
   * calls compute ({@link RunGate}, {@code LEADER_FOLLOWER}).
   */
  static void noTurn(CallSequencer calls, Call call, long waitedNanos, RunGate gate) {
    overloaded(
        calls,
        call,
        "not started: no turn to run within "
            + describe(waitedNanos)
            + " ("
            + gate.limit()
            + " calls computing at once at most)",
        null);
  }

  /**
   * {@code call} found as many calls waiting for a turn to compute as {@code workerQueueCapacity}
   * ({@link RunGate}, {@code WORKER}).
   */
  static void turnQueueFull(CallSequencer calls, Call call, RunGate gate) {
    overloaded(
        calls,
        call,
        "not queued: "
            + gate.waiters()
            + " calls wait for a turn to compute, the most workerQueueCapacity allows ("
            + gate.limit()
            + " calls computing at once at most)",
        null);
  }

  /**
   * {@code call}'s read batch found {@code ahead} batches waiting for a turn to run, which would
   * have kept it waiting about {@code waitAheadNanos}, past the {@code waitNanos} it may wait
   * ({@link RunGate}, {@code LEADER_FOLLOWER}): refused without waiting.
   */
  static void turnsAhead(
      CallSequencer calls,
      Call call,
      long waitNanos,
      int ahead,
      long waitAheadNanos,
      RunGate gate) {
    overloaded(
        calls,
        call,
        "not started: no turn to run within "
            + describe(waitNanos)
            + ": "
            + ahead
            + " read batches wait for one, about "
            + describe(waitAheadNanos)
            + " ("
            + gate.limit()
            + " calls computing at once at most)",
        null);
  }

  /** The calls in progress were at the server's adaptive limit when {@code call} was dispatched. */
  static void overLimit(CallSequencer calls, Call call, AdaptiveLimit limit) {
    overloaded(calls, call, "refused at the adaptive limit (" + limit.state() + ")", null);
  }

  private static void overloaded(
      CallSequencer calls, Call call, String what, RuntimeException cause) {
    CallPath path = calls.path;
    path.counters.overloadedCalls.increment();
    long count = path.overloadLog.record();
    ProcessorInvoker invoker = path.invokerFor(call.envelope); // the caller's protocol
    TMessage header = header(call, invoker);
    if (header == null) {
      unreadable(calls, call, cause != null ? cause : new IllegalStateException(what));
      return;
    }
    String message = "server overloaded: " + header.name + " " + what + " (" + detail(path) + ")";
    if (count != 0) {
      log.warn(
          "{}{} for {} seqid {} from {} ({} calls refused so far)",
          NotRun.PREFIX,
          message,
          header.name,
          header.seqid,
          calls.connection.remoteAddress(),
          count);
    }
    answer(calls, call, header, invoker, NotRun.PREFIX + message);
  }

  /**
   * {@code call} was unanswered {@code handlerTimeout} after its request was read.
   *
   * @param call a call the timeout took from whoever would answer it
   * @param started whether the processor had started it: if not, it never runs, and the answer says
   *     so ({@link NotRun})
   */
  static void timedOut(CallSequencer calls, Call call, boolean started) {
    CallPath path = calls.path;
    ProcessorInvoker invoker = path.invokerFor(call.envelope); // the caller's protocol
    TMessage header = header(call, invoker);
    String limit = "handlerTimeout " + describe(path.handlerTimeoutNanos);
    if (header == null) {
      // Not yet dispatched on a strategy that checks headers as calls run: no seqid to answer.
      unreadable(calls, call, new IllegalStateException("unanswered within " + limit));
      return;
    }
    ServerCounters counters = path.counters;
    counters.timedOutCalls.increment();
    counters.failedCalls.increment();
    if (started) {
      counters.completedCalls.increment();
    }
    String message = header.name + " did not complete within " + limit;
    boolean oneway = header.type == TMessageType.ONEWAY;
    log.warn(
        "{} seqid {} from {} did not complete within {}{}",
        header.name,
        header.seqid,
        calls.connection.remoteAddress(),
        limit,
        oneway
            ? " (oneway: nothing to answer)"
            : started
                ? "; answered INTERNAL_ERROR, the handler's late result will be discarded"
                : "; answered INTERNAL_ERROR before it started, it will not run");
    answer(calls, call, header, invoker, started ? message : NotRun.PREFIX + message);
  }

  /**
   * {@code call} is answered {@code not run: <reason> (<method> seqid <id>)}; see {@link
   * CallSequencer#notRun}.
   */
  static void notRun(CallSequencer calls, Call call, String reason) {
    ProcessorInvoker invoker = calls.path.invokerFor(call.envelope);
    TMessage header = header(call, invoker);
    if (header == null) {
      unreadable(calls, call, new IllegalStateException("not run: " + reason));
      return;
    }
    log.debug(
        "{}{} ({} seqid {}) from {}",
        NotRun.PREFIX,
        reason,
        header.name,
        header.seqid,
        calls.connection.remoteAddress());
    String message = NotRun.PREFIX + reason + " (" + header.name + " seqid " + header.seqid + ")";
    answer(calls, call, header, invoker, message);
  }

  /**
   * Answers a call by closing its connection after the replies ahead of it: its header cannot be
   * read, so there is no sequence id to answer.
   */
  static void unreadable(CallSequencer calls, Call call, Throwable cause) {
    calls.path.counters.badFrames.increment();
    log.warn(
        "Closing connection from {}: request message header unreadable ({})",
        calls.connection.remoteAddress(),
        cause.toString());
    calls.finish(call, null, true);
  }

  /**
   * The rule: the reply to a two-way call, or, if it cannot be encoded, the connection's close
   * after the replies ahead of it; nothing for a oneway call.
   */
  private static void answer(
      CallSequencer calls, Call call, TMessage header, ProcessorInvoker invoker, String message) {
    ByteBuffer reply =
        ErrorReplies.applicationException(
            header,
            TApplicationException.INTERNAL_ERROR,
            message,
            invoker.outputProtocolFactory(),
            invoker.maxFrameSize());
    boolean unanswerable = reply == null && header.type != TMessageType.ONEWAY;
    if (unanswerable) {
      log.warn(
          "Closing connection from {}: the error reply to {} seqid {} cannot be encoded (logged"
              + " above), and its caller must not wait on an open connection",
          calls.connection.remoteAddress(),
          header.name,
          header.seqid);
    }
    calls.finish(call, reply, unanswerable);
  }

  private static TMessage header(Call call, ProcessorInvoker invoker) {
    return ErrorReplies.readHeader(
        call.payload, invoker.inputProtocolFactory(), invoker.maxFrameSize());
  }

  private static String detail(CallPath path) {
    Executor worker = path.worker;
    if (worker == null) {
      return "it waited for the calls ahead of it on its connection";
    }
    if (worker instanceof ThreadPoolExecutor) {
      ThreadPoolExecutor pool = (ThreadPoolExecutor) worker;
      int queued = pool.getQueue().size();
      return "active="
          + pool.getActiveCount()
          + "/"
          + pool.getMaximumPoolSize()
          + ", queued="
          + queued
          + "/"
          + (queued + pool.getQueue().remainingCapacity());
    }
    return "executor " + worker;
  }

  /** {@code 500 ms} for whole milliseconds, else {@code 2.5 ms}, or {@code 500 us} under 1 ms. */
  static String describe(long nanos) {
    if (nanos % 1_000_000 == 0) {
      return nanos / 1_000_000 + " ms";
    }
    return nanos >= 1_000_000
        ? String.format(Locale.ROOT, "%.1f ms", nanos / 1e6)
        : TimeUnit.NANOSECONDS.toMicros(nanos) + " us";
  }
}
