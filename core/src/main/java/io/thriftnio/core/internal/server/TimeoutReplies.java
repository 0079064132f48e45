package io.thriftnio.core.internal.server;

import io.thriftnio.core.ProcessorInvoker;
import io.thriftnio.core.internal.ServerCounters;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers a call that {@link CallDeadlines} found unanswered {@code callTimeout} after its request
 * was read: with {@code TApplicationException(INTERNAL_ERROR)} naming the method and the limit
 * (nothing for a oneway call), counted in {@code timedOutCalls} and {@code failedCalls} (and in
 * {@code completedCalls} if the processor had started it: it ran, and this is how it ended), and
 * logged at WARN, one line per call: a call that times out is the application's own bound being
 * hit, not the flood an overload is. The call has been claimed ({@link Call#expire}): its late
 * result, if any, is discarded without a count.
 */
final class TimeoutReplies {
  private static final Logger log = LoggerFactory.getLogger(TimeoutReplies.class);

  private TimeoutReplies() {}

  /**
   * @param call a call {@link Call#expire} took
   * @param started whether the processor had started it
   */
  static void timedOut(CallSequencer calls, Call call, boolean started) {
    CallPath path = calls.path;
    ProcessorInvoker invoker = path.invokerFor(call.envelope); // the caller's protocol
    TMessage header =
        ErrorReplies.readHeader(
            call.payload, invoker.inputProtocolFactory(), invoker.maxFrameSize());
    String limit = "callTimeout " + describe(path.callTimeoutNanos);
    if (header == null) {
      // Not yet dispatched on a strategy that checks headers as calls run: no seqid to answer.
      call.closeUnreadable(new IllegalStateException("unanswered within " + limit));
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
    ByteBuffer reply =
        ErrorReplies.applicationException(
            header,
            TApplicationException.INTERNAL_ERROR,
            message,
            invoker.outputProtocolFactory(),
            invoker.maxFrameSize());
    calls.finish(call, reply, reply == null && !oneway); // unencodable: close, do not desync
  }

  /** {@code 500 ms} for whole milliseconds, else the ISO form ({@code PT0.0005S}). */
  static String describe(long nanos) {
    return nanos % 1_000_000 == 0 ? nanos / 1_000_000 + " ms" : Duration.ofNanos(nanos).toString();
  }
}
