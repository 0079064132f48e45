package io.thriftnio.core;

import io.thriftnio.core.internal.AsyncProcessorBridge;
import java.nio.ByteBuffer;
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
  }

  private static final Logger log = LoggerFactory.getLogger(ProcessorInvoker.class);

  private final TProcessor processor;
  private final AsyncProcessorBridge asyncBridge;
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
      int maxFrameSize) {
    this.processor = processor;
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
        maxFrameSize);
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
        maxFrameSize);
  }

  /** An invoker for the processor and protocols of a server configuration. */
  public static ProcessorInvoker of(ServerConfig config) {
    return config.processor() != null
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
        processor.process(call.in, call.out);
        call.complete();
        clean = true;
      }
    } catch (Throwable t) {
      call.fail(t);
    } finally {
      codecs.giveBack(codec, clean);
    }
  }

  private void invokeAsync(ByteBuffer payload, Call call) {
    if (isCallOrOneway(payload, call)) {
      asyncBridge.process(call);
    }
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
        completion.replied(null, false);
      } else {
        ByteBuffer frame = output.toFrame();
        codecs.replied(frame.remaining());
        completion.replied(frame, isExceptionReply());
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
        completion.unreadable(unreadable);
        return;
      }
      TApplicationException failure =
          CallMessages.failure(request, cause, payload, inputProtocolFactory, configuration);
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
