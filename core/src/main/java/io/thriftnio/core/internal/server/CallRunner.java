package io.thriftnio.core.internal.server;

import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.NotRun;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ServerInterceptor;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TProcessor;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocolException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one call of a {@link ProcessorInvoker} on the calling thread, in this order: the message
 * type checked; the interceptors' {@code beforeCall}; the caller's deadline checked; the processor
 * with {@link ServerCallContext#current()} set, inside the interceptors' scopes ({@link
 * ServerInterceptor#attach}), and for a synchronous processor its completion ({@code afterCall})
 * too. An asynchronous handler's completion opens the scopes again ({@link AsyncProcessorBridge}).
 */
final class CallRunner {
  private static final Logger log = LoggerFactory.getLogger(CallRunner.class);

  private CallRunner() {}

  /**
   * Runs a call of a synchronous processor.
   *
   * @return whether the codec may be used again: the call ended without a throwable, or was
   *     answered before the request was read (a refusal, a failed attach)
   */
  static boolean runSync(
      ProcessorInvoker invoker, TProcessor processor, ByteBuffer payload, InvokerCall call) {
    if (!isCallOrOneway(invoker, payload, call)) {
      return false; // failed
    }
    if (!admitted(invoker, call) || pastDeadline(call)) {
      return true; // a refusal wrote its whole reply, and never read the request
    }
    Supplier<?> outer = InvokerCall.current();
    InvokerCall.makeCurrent(call);
    Runnable[] scopes = call.openScopes();
    if (scopes == null) {
      InvokerCall.makeCurrent(outer);
      return true; // an attach threw: answered like a refusal
    }
    try {
      processor.process(call.in, call.out);
      InvokerCall.makeCurrent(outer);
      call.complete();
      return true;
    } catch (Throwable t) {
      InvokerCall.makeCurrent(outer);
      call.fail(t);
      return false;
    } finally {
      call.closeScopes(scopes);
    }
  }

  /** Starts a call of an asynchronous processor; it completes when its handler calls back. */
  static void runAsync(
      ProcessorInvoker invoker, AsyncProcessorBridge bridge, ByteBuffer payload, InvokerCall call) {
    if (!isCallOrOneway(invoker, payload, call) || !admitted(invoker, call) || pastDeadline(call)) {
      return;
    }
    Supplier<?> outer = InvokerCall.current();
    InvokerCall.makeCurrent(call);
    try {
      Runnable[] scopes = call.openScopes();
      if (scopes != null) { // else an attach threw, and the call is answered
        try {
          bridge.process(call); // a completion inside finds the call current: no second attach
        } finally {
          call.closeScopes(scopes);
        }
      }
    } finally {
      InvokerCall.makeCurrent(outer);
    }
  }

  /** Whether the interceptors, if any, let the call run; if not, they have answered it. */
  private static boolean admitted(ProcessorInvoker invoker, InvokerCall call) {
    return invoker.interceptors.length == 0
        || call.requestType == CallMessages.UNREADABLE // fails before any handler runs
        || call.intercept();
  }

  /**
   * Whether the caller's deadline ({@value ServerCallContext#CLIENT_TIMEOUT_HEADER}) passed before
   * the handler starts, after every beforeCall; if so the call has been answered {@link NotRun not
   * run}, and the handler never runs. A deadline that passed while the call waited for a worker is
   * found before the call reaches the invoker (the server's call sequencer sheds it as an
   * overload); this finds one that passed while the beforeCalls ran.
   */
  private static boolean pastDeadline(InvokerCall call) {
    long timeout = call.timeoutNanos(true);
    if (timeout == 0) {
      return false;
    }
    long late = System.nanoTime() - (call.completion.receivedAtNanos() + timeout);
    if (late < 0) {
      return false;
    }
    ServerCallContext c = call.context();
    String message =
        NotRun.PREFIX
            + c.methodName()
            + " not started: the caller's deadline ("
            + ServerCallContext.CLIENT_TIMEOUT_HEADER
            + " "
            + TimeUnit.NANOSECONDS.toMillis(timeout)
            + " ms) passed "
            + TimeUnit.NANOSECONDS.toMillis(late)
            + " ms before its handler would start";
    log.debug("{} (seqid {}) from {}", message, c.seqId(), c.remoteAddress());
    call.completion.deadlinePassed();
    call.answer(
        new TApplicationException(TApplicationException.INTERNAL_ERROR, message),
        CallOutcome.DEADLINE_EXCEEDED);
    return true;
  }

  /** Whether the request is a {@code CALL} or {@code ONEWAY}; fails {@code call} if not. */
  private static boolean isCallOrOneway(
      ProcessorInvoker invoker, ByteBuffer payload, InvokerCall call) {
    int type = CallMessages.type(payload, invoker.inputProtocolFactory, invoker.configuration);
    call.requestType = type;
    if (type != TMessageType.CALL
        && type != TMessageType.ONEWAY
        && type != CallMessages.UNREADABLE) {
      // Stock processors never look at the type: a REPLY or EXCEPTION sent as a request, or a
      // type that does not exist, would run the handler.
      call.fail(
          new TProtocolException(
              TProtocolException.INVALID_DATA,
              "message type " + type + " (expected: CALL (1) or ONEWAY (4))"));
      return false;
    }
    return true;
  }
}
