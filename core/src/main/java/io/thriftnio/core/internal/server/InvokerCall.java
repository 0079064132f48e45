package io.thriftnio.core.internal.server;

import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ServerInterceptor;
import io.thriftnio.core.util.internal.CallConnection;
import io.thriftnio.core.util.internal.ClientTimeouts;
import io.thriftnio.core.util.internal.ContextAccess;
import io.thriftnio.core.util.internal.FrameOutputTransport;
import io.thriftnio.core.util.internal.ProtocolBytes;
import java.lang.invoke.MethodHandles;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.Supplier;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TTransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request in progress in a {@link ProcessorInvoker}. Package-private methods are the contract
 * with {@code AsyncProcessorBridge}.
 *
 * <p>Phases: the call ends once, by its own thread ({@link #complete}, {@link #fail}, a refusal) or
 * by the server's call timeout ({@link #timeOut}), and the interceptors that entered see its
 * outcome once. A timeout while their {@code beforeCall} still run is left to the call's thread,
 * which alone knows how many entered. Without interceptors a call stays {@code STARTING} until it
 * ends. A call that timed out still tells its completion when its own end comes ({@link
 * ProcessorInvoker.Completion#claimReply}, which says no), so that the request can be released.
 *
 * <pre>
 *  STARTING --every beforeCall returned--&gt; RUNNING --complete, fail, refusal--&gt; ENDED
 *     | timeOut()                               | timeOut(): afterCall(TIMED_OUT) on the timer
 *     v                                         v
 *  TIMEOUT_LEFT                              TIMED_OUT
 *     | its own end: afterCall(TIMED_OUT)       | its own end
 *     +-------------------------------------&gt; FINISHED
 * </pre>
 */
final class InvokerCall implements Runnable, Supplier<ServerCallContext> {
  private static final Logger log = LoggerFactory.getLogger(InvokerCall.class);

  private static final AtomicIntegerFieldUpdater<InvokerCall> PHASE =
      AtomicIntegerFieldUpdater.newUpdater(InvokerCall.class, "phase");

  /** What the contexts keep out of their API; installed when ServerCallContext is initialized. */
  private static final ContextAccess.ServerContexts CONTEXTS = contexts();

  private static final int STARTING = 0;
  private static final int RUNNING = 1;
  private static final int ENDED = 2;
  private static final int TIMEOUT_LEFT = 3;
  private static final int TIMED_OUT = 4;
  private static final int FINISHED = 5;

  private final ProcessorInvoker invoker;
  private final ByteBuffer payload;
  private final FrameOutputTransport output;
  final TProtocol in;
  final TProtocol out;
  final ProcessorInvoker.Completion completion;
  private volatile int phase;

  /** The request's message type, or {@link CallMessages#UNREADABLE}; set before it runs. */
  int requestType = CallMessages.UNREADABLE;

  /** Created when first asked for, by the call's thread while it runs. */
  private ServerCallContext context;

  // Interceptor bookkeeping: written by the thread that starts the call, read by the one that
  // completes it (the handler's callback hands the call over), or by the call timeout's timer once
  // the phase says every beforeCall has returned.
  /** Interceptors whose {@code beforeCall} returned: they see the outcome. */
  private int entered;

  /** {@link System#nanoTime()} before the first {@code beforeCall}. */
  private long startNanos;

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

  private static ContextAccess.ServerContexts contexts() {
    try {
      MethodHandles.lookup().ensureInitialized(ServerCallContext.class);
    } catch (IllegalAccessException impossible) {
      throw new IllegalStateException(impossible);
    }
    return ContextAccess.serverContexts();
  }

  /** The current thread's server call, or {@code null}. */
  static Supplier<?> current() {
    return ContextAccess.serverCall();
  }

  /** Makes {@code call} the current thread's server call; {@code null} for none. */
  static void makeCurrent(Supplier<?> call) {
    ContextAccess.serverCall(call);
  }

  /** This call's context, created on the first request: {@link ServerCallContext#current()}. */
  @Override
  public ServerCallContext get() {
    return context();
  }

  /** The protocol reading the request. */
  TProtocol inputProtocol() {
    return in;
  }

  /** The protocol writing the response. */
  TProtocol outputProtocol() {
    return out;
  }

  /** The processor has written its whole response, or nothing for a oneway call. */
  void complete() {
    if (!end()) {
      return;
    }
    if (output.payloadSize() == 0 || isOnewayRequest()) {
      if (entered()) {
        afterCall(CallOutcome.ONEWAY);
      }
      passResponseHeaders();
      completion.replied(null, false);
    } else {
      ByteBuffer frame = output.toFrame();
      invoker.codecs.replied(frame.remaining());
      boolean failed = isExceptionReply();
      if (entered()) {
        if (failed) {
          // The processor answered a failure itself: the handler's exception stayed inside it.
          CONTEXTS.failed(
              context,
              CallMessages.applicationException(
                  output.payload(), invoker.outputProtocolFactory, invoker.configuration));
        }
        afterCall(
            CallMessages.outcome(
                output.payload(), invoker.outputProtocolFactory, invoker.configuration));
      }
      passResponseHeaders();
      completion.replied(frame, failed);
    }
  }

  /**
   * Ends the call on its own thread: whether it may answer. Not if it ended already, or if the
   * server answered it first ({@code handlerTimeout}); the interceptors then see {@code TIMED_OUT}
   * here, unless the timeout told them already.
   */
  private boolean end() {
    while (true) {
      int p = phase;
      if (p == STARTING || p == RUNNING) {
        if (PHASE.compareAndSet(this, p, ENDED)) {
          break;
        }
      } else if (p == TIMEOUT_LEFT || p == TIMED_OUT) {
        if (PHASE.compareAndSet(this, p, FINISHED)) {
          if (p == TIMEOUT_LEFT) {
            timedOutAfterCall();
          }
          completion.claimReply(); // false: the late result is discarded, its request released
          return false;
        }
      } else {
        return false; // a second completion of the same call
      }
    }
    if (completion.claimReply()) {
      return true;
    }
    timedOutAfterCall(); // the timeout answered first and, finding the call ENDED, left this here
    return false;
  }

  /**
   * {@link #timeOut()}: the call is the handle that {@link ProcessorInvoker.Completion#started}
   * hands the server call path, so that its timer ends the call without knowing this class.
   */
  @Override
  public void run() {
    timeOut();
  }

  /**
   * The server has answered this call with a timeout error ({@link ServerBuilder#handlerTimeout}):
   * its result, if it ever comes, is discarded, and the interceptors that entered see {@link
   * CallOutcome#TIMED_OUT} once, here if the call is past their {@code beforeCall}, else on the
   * call's own thread (which then does not run the processor). For the server call path, which
   * decides the timeout through {@link ProcessorInvoker.Completion#claimReply}; idempotent.
   */
  void timeOut() {
    while (true) {
      int p = phase;
      if (p == STARTING) {
        if (PHASE.compareAndSet(this, p, TIMEOUT_LEFT)) {
          return;
        }
      } else if (p == RUNNING) {
        if (PHASE.compareAndSet(this, p, TIMED_OUT)) {
          timedOutAfterCall();
          return;
        }
      } else {
        return; // ended: its own thread sees that its reply is not wanted; or timed out already
      }
    }
  }

  private void timedOutAfterCall() {
    if (entered()) {
      afterCall(CallOutcome.TIMED_OUT);
    }
  }

  /** Whether invoker.interceptors have run {@code beforeCall} and must see the outcome. */
  private boolean entered() {
    return context != null && entered > 0;
  }

  /** This call's context, created on the first request. */
  ServerCallContext context() {
    ServerCallContext c = context;
    if (c == null) {
      c = newContext();
      long timeout = timeoutNanos(false); // read again, not kept: no field on framed calls
      if (timeout != 0) {
        CONTEXTS.deadlineNanos(c, completion.receivedAtNanos() + timeout);
      }
      context = c;
    }
    return c;
  }

  /** A context for this call: its header read here, if it can be. */
  private ServerCallContext newContext() {
    String name = "";
    int seqId = 0;
    try {
      TMessage header =
          CallMessages.read(payload, invoker.inputProtocolFactory, invoker.configuration);
      name = header.name;
      seqId = header.seqid;
    } catch (TException | RuntimeException unreadable) {
      // Asked before the processor read the header, which then fails the call; no handler runs,
      // and nobody sees the empty name but an interceptor's afterCall.
    }
    return (ServerCallContext)
        CONTEXTS.create(
            completion.connection(),
            completion.connectionId(),
            completion.receivedAtNanos(),
            completion.queuedNanos(),
            name,
            seqId,
            (byte) requestType,
            invoker.inputProtocolFactory,
            completion.requestHeaders(),
            payload);
  }

  /**
   * Runs every interceptor's {@code beforeCall}; answers the call if one refuses or fails.
   *
   * @return whether the call may run
   */
  boolean intercept() {
    ServerCallContext c = context();
    startNanos = System.nanoTime();
    Supplier<?> outer = current();
    makeCurrent(this);
    try {
      for (ServerInterceptor interceptor : invoker.interceptors) {
        interceptor.beforeCall(c);
        entered++;
      }
      if (PHASE.compareAndSet(this, STARTING, RUNNING)) {
        return true;
      }
      end(); // timed out meanwhile: the interceptors that entered see it, the processor never runs
      return false;
    } catch (TApplicationException refusal) {
      answer(refusal, CallOutcome.REFUSED);
      return false;
    } catch (Throwable t) {
      failedBy(invoker.interceptors[entered], "before", t);
      return false;
    } finally {
      CONTEXTS.argumentsRead(c);
      makeCurrent(outer);
    }
  }

  /**
   * Answers the call with {@code INTERNAL_ERROR}, as a handler's failure would be, after an
   * interceptor threw ({@code phase}: "before" from beforeCall, "attaching" from attach), and says
   * so at WARN: whatever an interceptor throws fails this call alone.
   */
  private void failedBy(ServerInterceptor interceptor, String phase, Throwable t) {
    ServerCallContext c = context();
    ServerInterception.warnFailed(interceptor, phase, c, t);
    CONTEXTS.failed(c, t);
    String message = "Internal error processing " + c.methodName();
    answer(
        new TApplicationException(TApplicationException.INTERNAL_ERROR, message),
        CallOutcome.UNDECLARED_FAILURE);
  }

  // ---- the around form (ServerInterceptor.attach) ---------------------------------------------

  /**
   * Opens the interceptors' scopes on this thread: {@link ServerInterception#NONE} if none
   * attaches; {@code null} if an {@code attach} threw, and the call has been answered.
   */
  Runnable[] openScopes() {
    ServerInterceptor[] attaching = invoker.attaching;
    if (attaching.length == 0 || requestType == CallMessages.UNREADABLE) {
      return ServerInterception.NONE; // no interceptor attaches, or none ran: the call fails unread
    }
    try {
      return ServerInterception.open(attaching, context());
    } catch (ServerInterception.AttachFailure f) {
      failedBy(f.interceptor, "attaching for", f.getCause());
      return null;
    }
  }

  /** Closes what {@link #openScopes} opened, on the thread that opened it. */
  void closeScopes(Runnable[] scopes) {
    if (scopes.length > 0) {
      ServerInterception.close(scopes, invoker.attaching, context);
    }
  }

  /**
   * An async handler's completion: as {@link #openScopes}, unless it runs inside the handler's
   * method, where the scopes are open (the method runs with this call current: CallRunner).
   */
  Runnable[] completionScopes() {
    return current() == this ? ServerInterception.NONE : openScopes();
  }

  /**
   * The time the caller waits ({@value ServerCallContext#CLIENT_TIMEOUT_HEADER}), in nanoseconds; 0
   * for none. Read from the headers each time it is asked (twice a call at most): a framed call's
   * are empty.
   *
   * @param logIgnored whether to log a value that is ignored (once a call: the deadline check)
   */
  long timeoutNanos(boolean logIgnored) {
    return ClientTimeouts.nanos(completion.requestHeaders(), logIgnored, completion.connection());
  }

  /** Answers the call with {@code failure} without running the processor. */
  void answer(TApplicationException failure, CallOutcome outcome) {
    if (!end()) {
      return;
    }
    if (entered()) {
      CONTEXTS.failed(context, failure);
      afterCall(outcome);
    }
    if (isOnewayRequest()) {
      passResponseHeaders();
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
    passResponseHeaders();
    completion.replied(frame, true);
  }

  /**
   * Hands the reply's headers, if the context has any, to the completion: after every afterCall.
   */
  private void passResponseHeaders() {
    ServerCallContext c = context;
    if (c != null) {
      Map<String, String> headers = c.responseHeaders(); // Map.of() when none: no allocation
      if (!headers.isEmpty()) {
        completion.responseHeaders(headers);
      }
    }
  }

  /** Runs {@code afterCall} of the invoker.interceptors that were entered, last first. */
  private void afterCall(CallOutcome outcome) {
    long nanos = System.nanoTime() - startNanos;
    int ran = entered;
    entered = 0;
    ServerInterception.afterCall(invoker.interceptors, ran, context, outcome, nanos);
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
  void fail(Throwable cause) {
    if (!end()) {
      return;
    }
    if (answerInOwnProtocol(cause)) {
      return;
    }
    TMessage request;
    try {
      request = readHeader(payload);
    } catch (Throwable unreadable) {
      unreadable.addSuppressed(cause);
      if (entered()) {
        CONTEXTS.failed(context, cause);
        afterCall(CallOutcome.UNDECLARED_FAILURE);
      }
      completion.unreadable(unreadable);
      return;
    }
    TApplicationException failure =
        CallMessages.failure(
            request, cause, payload, invoker.inputProtocolFactory, invoker.configuration);
    if (entered()) {
      // The handler's Error or the processor's own exception; for a malformed request, the
      // PROTOCOL_ERROR the caller is sent.
      CONTEXTS.failed(
          context, failure.getType() == TApplicationException.INTERNAL_ERROR ? cause : failure);
      afterCall(
          failure.getType() == TApplicationException.INTERNAL_ERROR
              ? CallOutcome.UNDECLARED_FAILURE
              : CallOutcome.APPLICATION_EXCEPTION);
    }
    if (failure.getType() == TApplicationException.INTERNAL_ERROR) {
      log.error("Unhandled {} in handler for {}", cause.getClass().getName(), request.name, cause);
    } else {
      log.debug("Malformed request for {}", request.name, cause);
    }
    if (request.type == TMessageType.ONEWAY) {
      passResponseHeaders();
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
    passResponseHeaders();
    completion.replied(frame, true);
  }

  /**
   * A request in another protocol than the server's (a compact client on a binary server) is
   * answered {@code PROTOCOL_ERROR} in the request's own protocol, so that its client reads why;
   * the server logs it at INFO once per peer address. Whether it was answered so.
   */
  private boolean answerInOwnProtocol(Throwable cause) {
    byte[] first = new byte[Math.min(4, payload.remaining())];
    payload.duplicate().get(first);
    String theirs = ProtocolBytes.otherProtocol(first, first.length, invoker.protocolName);
    TProtocolFactory own = theirs == null ? null : ProtocolBytes.protocolFactory(first[0]);
    if (own == null) {
      return false;
    }
    TMessage request;
    try {
      request = CallMessages.read(payload, own, invoker.configuration);
    } catch (TException | RuntimeException unreadable) {
      return false;
    }
    String what =
        "the request is in "
            + theirs
            + ", this server reads "
            + invoker.protocolName
            + " (ServerBuilder.protocol)";
    CallConnection<?> connection = completion.connection();
    SocketAddress peer = connection == null ? null : connection.remoteAddress();
    if (invoker.protocolHints.first(peer)) {
      log.info(
          "Calls from {} arrive in {}; this server reads {}: build the server with"
              + " ServerBuilder.protocol(..) of its clients' protocol, or the clients with {}"
              + " (further calls from this address are answered PROTOCOL_ERROR without this line)",
          peer,
          theirs,
          invoker.protocolName,
          invoker.protocolName);
    }
    TApplicationException failure =
        new TApplicationException(
            TApplicationException.PROTOCOL_ERROR, "request " + request.name + " refused: " + what);
    if (entered()) {
      CONTEXTS.failed(context, failure);
      afterCall(CallOutcome.APPLICATION_EXCEPTION);
    }
    if (request.type == TMessageType.ONEWAY) {
      passResponseHeaders();
      completion.replied(null, true);
      return true;
    }
    ByteBuffer frame;
    try {
      frame = CallMessages.exceptionReply(request, failure, own.getProtocol(output), output);
    } catch (Throwable t) {
      t.addSuppressed(cause);
      completion.unreadable(t);
      return true;
    }
    passResponseHeaders();
    completion.replied(frame, true);
    return true;
  }

  private TMessage readHeader(ByteBuffer frame) throws TException {
    return CallMessages.read(frame, invoker.inputProtocolFactory, invoker.configuration);
  }
}
