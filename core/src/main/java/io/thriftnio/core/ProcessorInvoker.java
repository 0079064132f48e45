package io.thriftnio.core;

import io.thriftnio.core.internal.AsyncProcessorBridge;
import io.thriftnio.core.internal.server.ServerConnection;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TAsyncProcessor;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.TProcessor;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolException;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TTransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a Thrift processor for one request frame and yields the response frame.
 *
 * <p>Both processor kinds are supported: a synchronous {@link TProcessor} (including {@link
 * org.apache.thrift.TMultiplexedProcessor}) runs on the calling thread; a {@link TAsyncProcessor}
 * (a generated {@code AsyncProcessor}) completes whenever its handler calls back. Input and output
 * protocol factories may differ.
 *
 * <p>Outcomes of {@link #invoke(ByteBuffer)}:
 *
 * <ul>
 *   <li>a two-way call completes with the response frame (length prefix included);
 *   <li>a oneway call completes with {@code null}: nothing is sent back;
 *   <li>a handler that throws an undeclared exception, or an {@link Error}, yields a {@link
 *       TApplicationException#INTERNAL_ERROR} reply for the caller's sequence id; a message that
 *       ends early, or whose arguments libthrift cannot decode, yields {@link
 *       TApplicationException#PROTOCOL_ERROR}; the calling thread never sees the throwable;
 *   <li>a message whose type is neither {@code CALL} nor {@code ONEWAY} (a {@code REPLY} sent as a
 *       request, or a type that does not exist) yields {@link TApplicationException#PROTOCOL_ERROR}
 *       without running the processor: stock processors would run the handler for it;
 *   <li>bytes after a whole message, inside its frame, are ignored, as by every stock libthrift
 *       processor: the frame, not the message, keeps the connection's stream in step;
 *   <li>a frame whose message header cannot be read at all completes exceptionally with a {@link
 *       TException}: there is no sequence id to answer, and the transport should close the
 *       connection.
 * </ul>
 *
 * <p>{@link #invoke(ByteBuffer, Completion)} reports the same outcomes without a future, and says
 * whether the reply is a {@link TApplicationException}, so that a server counts failed calls
 * without reading its replies again.
 *
 * <p>While the processor runs a call (and while an asynchronous processor starts one), {@link
 * ServerCallContext#current()} returns that call's context on the running thread. {@link
 * ServerInterceptor}s given to {@link #withInterceptors} run around every call.
 *
 * <p>Thread-safe: one invoker serves every connection of a server.
 */
public final class ProcessorInvoker {

  /**
   * Receives the outcome of one {@link #invoke(ByteBuffer, Completion) call}: exactly one method is
   * called, once, on the thread that completes the call (the caller's for a synchronous processor,
   * any thread for an asynchronous one).
   */
  public interface Completion {
    /**
     * The call is over.
     *
     * @param frame the reply frame, length prefix included, or {@code null} when nothing is to be
     *     sent (a oneway call)
     * @param failed whether the call ended in a {@link TApplicationException}: the reply is an
     *     {@code EXCEPTION} message (an undeclared handler exception, a malformed request, an
     *     unknown method, a handler's own {@code TApplicationException}), or a oneway call failed
     */
    void replied(ByteBuffer frame, boolean failed);

    /**
     * The request's message header cannot be read: there is no sequence id to answer, and the
     * connection should be closed.
     *
     * @param cause why, with the bytes' story where libthrift tells it
     */
    void unreadable(Throwable cause);

    /**
     * The connection the call came on, for {@link ServerCallContext}: its addresses and TLS
     * session. Default: {@code null}, unknown. For the server call path; not part of the API.
     */
    default ServerConnection connection() {
      return null;
    }

    /** The connection's number, for {@link ServerCallContext#connectionId()}. Default: 0. */
    default long connectionId() {
      return 0;
    }

    /**
     * {@link System#nanoTime()} when the request arrived, for {@link
     * ServerCallContext#receivedAtNanos()}. Default: the time it is asked, during the call.
     */
    default long receivedAtNanos() {
      return System.nanoTime();
    }
  }

  private static final ServerInterceptor[] NO_INTERCEPTORS = new ServerInterceptor[0];

  /** The call the current thread's processor runs; {@code null} (never removed) between calls. */
  private static final ThreadLocal<Call> CURRENT = new ThreadLocal<>();

  private static final Logger log = LoggerFactory.getLogger(ProcessorInvoker.class);

  private final TProcessor processor;
  private final TAsyncProcessor asyncProcessor;
  private final AsyncProcessorBridge asyncBridge;
  private final ServerInterceptor[] interceptors;
  private final TProtocolFactory inputProtocolFactory;
  private final TProtocolFactory outputProtocolFactory;
  private final int maxFrameSize;
  // Shared by every call: protocols and transports only read it.
  private final TConfiguration configuration;
  private final Codecs codecs;

  private ProcessorInvoker(
      TProcessor processor,
      TAsyncProcessor asyncProcessor,
      TProtocolFactory inputProtocolFactory,
      TProtocolFactory outputProtocolFactory,
      int maxFrameSize,
      ServerInterceptor[] interceptors) {
    this.processor = processor;
    this.asyncProcessor = asyncProcessor;
    this.interceptors = interceptors;
    this.asyncBridge = asyncProcessor == null ? null : new AsyncProcessorBridge(asyncProcessor);
    this.inputProtocolFactory =
        Objects.requireNonNull(inputProtocolFactory, "inputProtocolFactory");
    this.outputProtocolFactory =
        Objects.requireNonNull(outputProtocolFactory, "outputProtocolFactory");
    this.maxFrameSize = Framing.checkMaxFrameSize(maxFrameSize);
    this.configuration =
        new TConfiguration(maxFrameSize, maxFrameSize, TConfiguration.DEFAULT_RECURSION_DEPTH);
    this.codecs = new Codecs(configuration, inputProtocolFactory, outputProtocolFactory);
  }

  /**
   * An invoker for a synchronous processor.
   *
   * @param processor the processor, e.g. {@code new BenchService.Processor<>(handler)}
   * @param inputProtocolFactory decodes requests
   * @param outputProtocolFactory encodes responses
   * @param maxFrameSize the largest request and response payload, in bytes
   * @return the invoker
   */
  public static ProcessorInvoker of(
      TProcessor processor,
      TProtocolFactory inputProtocolFactory,
      TProtocolFactory outputProtocolFactory,
      int maxFrameSize) {
    return new ProcessorInvoker(
        Objects.requireNonNull(processor, "processor"),
        null,
        inputProtocolFactory,
        outputProtocolFactory,
        maxFrameSize,
        NO_INTERCEPTORS);
  }

  /**
   * An invoker for an asynchronous processor.
   *
   * @param processor the processor, e.g. {@code new BenchService.AsyncProcessor<>(handler)}
   * @param inputProtocolFactory decodes requests
   * @param outputProtocolFactory encodes responses
   * @param maxFrameSize the largest request and response payload, in bytes
   * @return the invoker
   */
  public static ProcessorInvoker ofAsync(
      TAsyncProcessor processor,
      TProtocolFactory inputProtocolFactory,
      TProtocolFactory outputProtocolFactory,
      int maxFrameSize) {
    return new ProcessorInvoker(
        null,
        Objects.requireNonNull(processor, "processor"),
        inputProtocolFactory,
        outputProtocolFactory,
        maxFrameSize,
        NO_INTERCEPTORS);
  }

  /** An invoker for the processor, protocols and interceptors of a server configuration. */
  public static ProcessorInvoker of(ServerConfig config) {
    ProcessorInvoker invoker =
        config.processor() != null
            ? of(
                config.processor(),
                config.inputProtocolFactory(),
                config.outputProtocolFactory(),
                config.maxFrameSize())
            : ofAsync(
                config.asyncProcessor(),
                config.inputProtocolFactory(),
                config.outputProtocolFactory(),
                config.maxFrameSize());
    return config.interceptors().isEmpty()
        ? invoker
        : invoker.withInterceptors(config.interceptors());
  }

  /**
   * This invoker's processor and protocols with {@code interceptors} around every call, in order
   * (see {@link ServerInterceptor}), replacing any it had. For a pipeline of your own; servers take
   * theirs from {@link ServerBuilder#interceptors}.
   *
   * @param interceptors the interceptors, first to run first; may be empty
   * @return a new invoker
   * @throws NullPointerException if the list or an element is {@code null}
   */
  public ProcessorInvoker withInterceptors(List<? extends ServerInterceptor> interceptors) {
    ServerInterceptor[] chain = interceptors.toArray(new ServerInterceptor[0]);
    for (int i = 0; i < chain.length; i++) {
      Objects.requireNonNull(chain[i], "interceptors[" + i + "]");
    }
    return new ProcessorInvoker(
        processor,
        asyncProcessor,
        inputProtocolFactory,
        outputProtocolFactory,
        maxFrameSize,
        chain);
  }

  /** The interceptors around every call, first to run first. */
  public List<ServerInterceptor> interceptors() {
    return List.of(interceptors);
  }

  /** The context of the call the current thread runs, or {@code null}. */
  static ServerCallContext currentContext() {
    Call call = CURRENT.get();
    return call == null ? null : call.context();
  }

  /** The protocol requests are read with. */
  public TProtocolFactory inputProtocolFactory() {
    return inputProtocolFactory;
  }

  /** The protocol replies are written with. */
  public TProtocolFactory outputProtocolFactory() {
    return outputProtocolFactory;
  }

  /** The largest request and reply payload, in bytes. */
  public int maxFrameSize() {
    return maxFrameSize;
  }

  /** Whether the processor is a {@link TAsyncProcessor} that may complete on another thread. */
  public boolean isAsync() {
    return asyncBridge != null;
  }

  /**
   * Processes one request.
   *
   * @param payload the request frame's payload (no length prefix), from position to limit; read in
   *     place, and not retained after the returned future completes
   * @return a future of the response frame (prefix included), or of {@code null} for a oneway call;
   *     already complete for a synchronous processor; failed with a {@link FrameSizeException} if
   *     the payload is above {@code maxFrameSize}
   */
  public CompletableFuture<ByteBuffer> invoke(ByteBuffer payload) {
    CompletableFuture<ByteBuffer> result = new CompletableFuture<>();
    invoke(
        payload,
        new Completion() {
          @Override
          public void replied(ByteBuffer frame, boolean failed) {
            result.complete(frame);
          }

          @Override
          public void unreadable(Throwable cause) {
            result.completeExceptionally(cause);
          }
        });
    return result;
  }

  /**
   * Processes one request and reports its outcome to {@code completion}, without allocating a
   * future.
   *
   * @param payload as for {@link #invoke(ByteBuffer)}; not retained after {@code completion} is
   *     called
   * @param completion called once, before this method returns for a synchronous processor; a
   *     payload above {@code maxFrameSize} is {@linkplain Completion#unreadable unreadable} with a
   *     {@link FrameSizeException}
   */
  public void invoke(ByteBuffer payload, Completion completion) {
    if (payload.remaining() > maxFrameSize) {
      // The transports' decoders refuse such a frame first; a caller feeding payloads directly (an
      // in-memory channel) gets the same typed error rather than libthrift's message-size one.
      completion.unreadable(new FrameSizeException(payload.remaining(), maxFrameSize, null));
      return;
    }
    Codecs.Codec codec;
    Call call;
    try {
      codec = asyncBridge == null ? codecs.borrow() : codecs.fresh();
      call = new Call(payload, completion, codec);
    } catch (TTransportException e) {
      completion.unreadable(e);
      return;
    }
    if (asyncBridge != null) {
      invokeAsync(payload, call);
      return;
    }
    boolean clean = false;
    try {
      if (isCallOrOneway(payload, call)) {
        if (admitted(call)) {
          Call outer = CURRENT.get();
          CURRENT.set(call);
          try {
            processor.process(call.in, call.out);
          } finally {
            CURRENT.set(outer);
          }
          call.complete();
        }
        clean = true; // a refusal wrote its whole reply, and never read the request
      }
    } catch (Throwable t) {
      call.fail(t);
    } finally {
      codecs.giveBack(codec, clean);
    }
  }

  private void invokeAsync(ByteBuffer payload, Call call) {
    if (isCallOrOneway(payload, call) && admitted(call)) {
      Call outer = CURRENT.get();
      CURRENT.set(call);
      try {
        asyncBridge.process(call);
      } finally {
        CURRENT.set(outer);
      }
    }
  }

  /** Whether the interceptors, if any, let the call run; if not, they have answered it. */
  private boolean admitted(Call call) {
    return interceptors.length == 0
        || call.requestType == CallMessages.UNREADABLE // fails before any handler runs
        || call.intercept();
  }

  /** Whether the request is a {@code CALL} or {@code ONEWAY}; fails {@code call} if not. */
  private boolean isCallOrOneway(ByteBuffer payload, Call call) {
    int type = CallMessages.type(payload, inputProtocolFactory, configuration);
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

  /**
   * One request in progress. Package-private methods are the contract with {@link
   * AsyncProcessorBridge}.
   */
  public final class Call {
    private static final AtomicIntegerFieldUpdater<Call> DONE =
        AtomicIntegerFieldUpdater.newUpdater(Call.class, "done");

    private final ByteBuffer payload;
    private final FrameOutputTransport output;
    private final TProtocol in;
    private final TProtocol out;
    private final Completion completion;
    private volatile int done;

    /** The request's message type, or {@link CallMessages#UNREADABLE}; set before it runs. */
    private int requestType = CallMessages.UNREADABLE;

    /** Created when first asked for, by the call's thread while it runs. */
    private ServerCallContext context;

    private Call(ByteBuffer payload, Completion completion, Codecs.Codec codec)
        throws TTransportException {
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
        codecs.replied(frame.remaining());
        boolean failed = isExceptionReply();
        if (entered()) {
          afterCall(CallMessages.outcome(output.payload(), outputProtocolFactory, configuration));
        }
        completion.replied(frame, failed);
      }
    }

    /** Whether interceptors have run {@code beforeCall} and must see the outcome. */
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
          TMessage header = readHeader(payload);
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
                inputProtocolFactory);
        context = c;
      }
      return c;
    }

    /**
     * Runs every interceptor's {@code beforeCall}; answers the call if one refuses or fails.
     *
     * @return whether the call may run
     */
    private boolean intercept() {
      ServerCallContext c = context();
      c.startNanos = System.nanoTime();
      Call outer = CURRENT.get();
      CURRENT.set(this);
      try {
        for (ServerInterceptor interceptor : interceptors) {
          interceptor.beforeCall(c);
          c.entered++;
        }
        return true;
      } catch (TApplicationException refusal) {
        answer(refusal, CallOutcome.REFUSED);
        return false;
      } catch (Throwable t) {
        // Whatever an interceptor throws fails this call alone, as a handler's failure would.
        log.warn(
            "Interceptor {} failed before {} (seqid {}) from {}; answering INTERNAL_ERROR",
            interceptors[c.entered].getClass().getName(),
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
        CURRENT.set(outer);
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

    /** Runs {@code afterCall} of the interceptors that were entered, last first. */
    private void afterCall(CallOutcome outcome) {
      ServerCallContext c = context;
      long nanos = System.nanoTime() - c.startNanos;
      int entered = c.entered;
      c.entered = 0;
      for (int i = entered - 1; i >= 0; i--) {
        try {
          interceptors[i].afterCall(c, outcome, nanos);
        } catch (Throwable t) {
          // The reply is decided; a failing afterCall must not change it or skip the others.
          log.warn(
              "Interceptor {} failed after {} (seqid {}, {}) from {}",
              interceptors[i].getClass().getName(),
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
      return CallMessages.type(output.payload(), outputProtocolFactory, configuration)
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
          CallMessages.failure(request, cause, payload, inputProtocolFactory, configuration);
      if (entered()) {
        afterCall(
            failure.getType() == TApplicationException.INTERNAL_ERROR
                ? CallOutcome.UNDECLARED_FAILURE
                : CallOutcome.APPLICATION_EXCEPTION);
      }
      if (failure.getType() == TApplicationException.INTERNAL_ERROR) {
        log.error(
            "Unhandled {} in handler for {}", cause.getClass().getName(), request.name, cause);
      } else {
        log.debug("Malformed request for {}", request.name, cause);
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
      return CallMessages.read(frame, inputProtocolFactory, configuration);
    }
  }
}
