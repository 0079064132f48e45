package io.thriftnio.core.internal.server;

import io.thriftnio.core.ProcessorInvoker;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers a call the worker executor did not run: refused ({@code RejectedExecutionException}), or
 * not started within {@code workerStartTimeout} (an executor that dropped the task, or a queue that
 * long). Either is answered with {@code TApplicationException(INTERNAL_ERROR)} naming the method
 * and the executor's numbers, counted in {@code overloadedCalls} only, and logged at the 1st, 2nd,
 * 4th, 8th ... occurrence per server: under overload, every call would log.
 */
final class OverloadReplies {
  private static final Logger log = LoggerFactory.getLogger(OverloadReplies.class);

  private OverloadReplies() {}

  /** The executor threw {@code RejectedExecutionException} for {@code call}. */
  static void refused(CallSequencer calls, Call call, RuntimeException cause) {
    answer(calls, call, "refused, the worker executor is full", cause);
  }

  /** The executor has not started {@code call} within the start timeout. */
  static void notStarted(CallSequencer calls, Call call) {
    long millis = TimeUnit.NANOSECONDS.toMillis(calls.path.startTimeoutNanos);
    answer(
        calls,
        call,
        "not started within " + millis + " ms (workerStartTimeout) by the worker executor",
        null);
  }

  private static void answer(CallSequencer calls, Call call, String what, RuntimeException cause) {
    CallPath path = calls.path;
    path.counters.overloadedCalls.increment();
    long count = path.overloadLog.record();
    ProcessorInvoker invoker = path.invokerFor(call.envelope); // the caller's protocol
    TMessage header =
        ErrorReplies.readHeader(
            call.payload, invoker.inputProtocolFactory(), invoker.maxFrameSize());
    if (header == null) {
      call.unreadable(cause != null ? cause : new IllegalStateException(what));
      return;
    }
    String message = "server overloaded: " + header.name + " " + what + " (" + detail(path) + ")";
    if (count != 0) {
      log.warn(
          "{} for {} seqid {} from {} ({} calls refused so far)",
          message,
          header.name,
          header.seqid,
          calls.connection.remoteAddress(),
          count);
    }
    ByteBuffer reply =
        ErrorReplies.applicationException(
            header,
            TApplicationException.INTERNAL_ERROR,
            message,
            invoker.outputProtocolFactory(),
            invoker.maxFrameSize());
    calls.finish(call, reply, false);
  }

  private static String detail(CallPath path) {
    Executor worker = path.worker;
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
}
