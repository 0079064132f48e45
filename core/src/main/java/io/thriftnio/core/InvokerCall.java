package io.thriftnio.core;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.transport.TTransportException;

/**
 * One request in progress in a {@link ProcessorInvoker}. Package-private methods are the contract
 * with {@link io.thriftnio.core.internal.AsyncProcessorBridge}.
 */
public final class InvokerCall {
  private static final AtomicIntegerFieldUpdater<InvokerCall> DONE =
      AtomicIntegerFieldUpdater.newUpdater(InvokerCall.class, "done");

  private final ProcessorInvoker invoker;
  private final ByteBuffer payload;
  private final FrameOutputTransport output;
  final TProtocol in;
  final TProtocol out;
  private final ProcessorInvoker.Completion completion;
  private volatile int done;

  /** The request's message type, or {@link CallMessages#UNREADABLE}; set before it runs. */
  int requestType = CallMessages.UNREADABLE;

  /** Created when first asked for, by the call's thread while it runs. */
  private ServerCallContext context;

  InvokerCall(
      ProcessorInvoker invoker,
      ByteBuffer payload,
      ProcessorInvoker.Completion completion,
      Codecs.Codec codec)
      throws TTransportException {
    this.invoker = invoker;
    this.payload = payload;
    this.completion = completion;
    this.output = codec.output;
    this.in = codec.in;
    this.out = codec.out;
    codec.input.reset(payload);
  }

  /** The protocol reading the request. */
  public TProtocol inputProtocol() {
    return in;
  }

  /** The protocol writing the response. */
  public TProtocol outputProtocol() {
    return out;
  }

  /** The processor has written its whole response, or nothing for a oneway call. */
  public void complete() {
    if (!DONE.compareAndSet(this, 0, 1)) {
      return;
    }
    if (output.payloadSize() == 0 || isOnewayRequest()) {
      if (entered()) {
        afterCall(CallOutcome.ONEWAY);
      }
      completion.replied(null, false);
    } else {
      ByteBuffer frame = output.toFrame();
      invoker.codecs.replied(frame.remaining());
      boolean failed = isExceptionReply();
      if (entered()) {
        afterCall(
            CallMessages.outcome(
                output.payload(), invoker.outputProtocolFactory, invoker.configuration));
      }
      completion.replied(frame, failed);
    }
  }

  /** Whether invoker.interceptors have run {@code beforeCall} and must see the outcome. */
  private boolean entered() {
    ServerCallContext c = context;
    return c != null && c.entered > 0;
  }

  /** This call's context, created on the first request. */
  ServerCallContext context() {
    ServerCallContext c = context;
    if (c == null) {
      String name = "";
      int seqId = 0;
      try {
        TMessage header =
            CallMessages.read(payload, invoker.inputProtocolFactory, invoker.configuration);
        name = header.name;
        seqId = header.seqid;
      } catch (TException | RuntimeException unreadable) {
        // Asked before the processor read the header, which then fails the call; no handler
        // runs, and nobody sees the empty name but an interceptor's afterCall.
      }
      c =
          new ServerCallContext(
              completion.connection(),
              completion.connectionId(),
              completion.receivedAtNanos(),
              name,
              seqId,
              (byte) requestType,
              invoker.inputProtocolFactory);
      context = c;
    }
    return c;
  }

  /**
   * Runs every interceptor's {@code beforeCall}; answers the call if one refuses or fails.
   *
   * @return whether the call may run
   */
  boolean intercept() {
    ServerCallContext c = context();
    c.startNanos = System.nanoTime();
    InvokerCall outer = ProcessorInvoker.CURRENT.get();
    ProcessorInvoker.CURRENT.set(this);
    try {
      for (ServerInterceptor interceptor : invoker.interceptors) {
        interceptor.beforeCall(c);
        c.entered++;
      }
      return true;
    } catch (TApplicationException refusal) {
      answer(refusal, CallOutcome.REFUSED);
      return false;
    } catch (Throwable t) {
      // Whatever an interceptor throws fails this call alone, as a handler's failure would.
      ProcessorInvoker.log.warn(
          "Interceptor {} failed before {} (seqid {}) from {}; answering INTERNAL_ERROR",
          invoker.interceptors[c.entered].getClass().getName(),
          c.methodName(),
          c.seqId(),
          c.remoteAddress(),
          t);
      String message = "Internal error processing " + c.methodName();
      answer(
          new TApplicationException(TApplicationException.INTERNAL_ERROR, message),
          CallOutcome.UNDECLARED_FAILURE);
      return false;
    } finally {
      ProcessorInvoker.CURRENT.set(outer);
    }
  }

  /** Answers the call with {@code failure} without running the processor. */
  private void answer(TApplicationException failure, CallOutcome outcome) {
    if (!DONE.compareAndSet(this, 0, 1)) {
      return;
    }
    afterCall(outcome);
    if (isOnewayRequest()) {
      completion.replied(null, true);
      return;
    }
    ServerCallContext c = context();
    ByteBuffer frame;
    try {
      TMessage request = new TMessage(c.methodName(), TMessageType.EXCEPTION, c.seqId());
      frame = CallMessages.exceptionReply(request, failure, out, output);
    } catch (Throwable t) {
      completion.unreadable(t);
      return;
    }
    completion.replied(frame, true);
  }

  /** Runs {@code afterCall} of the invoker.interceptors that were entered, last first. */
  private void afterCall(CallOutcome outcome) {
    ServerCallContext c = context;
    long nanos = System.nanoTime() - c.startNanos;
    int entered = c.entered;
    c.entered = 0;
    for (int i = entered - 1; i >= 0; i--) {
      try {
        invoker.interceptors[i].afterCall(c, outcome, nanos);
      } catch (Throwable t) {
        // The reply is decided; a failing afterCall must not change it or skip the others.
        ProcessorInvoker.log.warn(
            "Interceptor {} failed after {} (seqid {}, {}) from {}",
            invoker.interceptors[i].getClass().getName(),
            c.methodName(),
            c.seqId(),
            outcome,
            c.remoteAddress(),
            t);
      }
    }
  }

  // libthrift's processors answer an undeclared handler exception themselves, with an
  // INTERNAL_ERROR reply: the reply's own header says whether the call failed.
  private boolean isExceptionReply() {
    return CallMessages.type(output.payload(), invoker.outputProtocolFactory, invoker.configuration)
        == TMessageType.EXCEPTION;
  }

  // libthrift's sync processors answer even a oneway request when its arguments are malformed
  // (ProcessFunction) or its method is unknown (TBaseProcessor); a reply nobody awaits would be
  // matched to the caller's next call on a pipelined connection.
  private boolean isOnewayRequest() {
    return requestType == TMessageType.ONEWAY;
  }

  /**
   * The processor could not produce a response: answer with a {@link TApplicationException} when
   * the request's header can be read, else fail the call.
   */
  public void fail(Throwable cause) {
    if (!DONE.compareAndSet(this, 0, 1)) {
      return;
    }
    TMessage request;
    try {
      request = readHeader(payload);
    } catch (Throwable unreadable) {
      unreadable.addSuppressed(cause);
      if (entered()) {
        afterCall(CallOutcome.UNDECLARED_FAILURE);
      }
      completion.unreadable(unreadable);
      return;
    }
    TApplicationException failure =
        CallMessages.failure(
            request, cause, payload, invoker.inputProtocolFactory, invoker.configuration);
    if (entered()) {
      afterCall(
          failure.getType() == TApplicationException.INTERNAL_ERROR
              ? CallOutcome.UNDECLARED_FAILURE
              : CallOutcome.APPLICATION_EXCEPTION);
    }
    if (failure.getType() == TApplicationException.INTERNAL_ERROR) {
      ProcessorInvoker.log.error(
          "Unhandled {} in handler for {}", cause.getClass().getName(), request.name, cause);
    } else {
      ProcessorInvoker.log.debug("Malformed request for {}", request.name, cause);
    }
    if (request.type == TMessageType.ONEWAY) {
      completion.replied(null, true);
      return;
    }
    ByteBuffer frame;
    try {
      frame = CallMessages.exceptionReply(request, failure, out, output);
    } catch (Throwable t) {
      t.addSuppressed(cause);
      completion.unreadable(t);
      return;
    }
    completion.replied(frame, true);
  }

  private TMessage readHeader(ByteBuffer frame) throws TException {
    return CallMessages.read(frame, invoker.inputProtocolFactory, invoker.configuration);
  }
}
