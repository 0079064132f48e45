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
import org.apache.thrift.protocol.TProtocolUtil;
import org.apache.thrift.protocol.TType;
import org.apache.thrift.transport.TTransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a Thrift processor for one request frame and yields the response frame.
 *
 * <p>Both processor kinds are supported: a synchronous {@link TProcessor} (including {@link
 * org.apache.thrift.TMultiplexedProcessor}) runs on the calling thread; a {@link
 * TAsyncProcessor} (a generated {@code AsyncProcessor}) completes whenever its handler calls back.
 * Input and output protocol factories may differ.
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
 *       request, or a type that does not exist) yields {@link
 *       TApplicationException#PROTOCOL_ERROR} without running the processor: stock processors
 *       would run the handler for it;
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
    Call call;
    try {
      call = new Call(payload, completion);
    } catch (TTransportException e) {
      completion.unreadable(e);
      return;
    }
    int type = messageType(payload);
    if (type != TMessageType.CALL && type != TMessageType.ONEWAY && type != UNREADABLE) {
      // Stock processors never look at the type: a REPLY or EXCEPTION sent as a request, or a
      // type that does not exist, would run the handler.
      call.fail(
          new TProtocolException(
              TProtocolException.INVALID_DATA,
              "message type " + type + " (expected: CALL (1) or ONEWAY (4))"));
      return;
    }
    if (asyncBridge != null) {
      asyncBridge.process(call);
      return;
    }
    try {
      processor.process(call.in, call.out);
      call.complete();
    } catch (Throwable t) {
      call.fail(t);
    }
  }

  /** {@link #messageType} of a header that cannot be read; the processor reports why. */
  private static final int UNREADABLE = -1;

  /**
   * The message type of a request: read in place for strict binary ({@code 80 01 00 type}) and
   * compact ({@code 82, type << 5 | version}), else from the parsed header.
   */
  private int messageType(ByteBuffer payload) {
    int p = payload.position();
    if (payload.remaining() >= 4) {
      int b0 = payload.get(p) & 0xff;
      int b1 = payload.get(p + 1) & 0xff;
      if (b0 == 0x80 && b1 == 0x01) {
        return payload.get(p + 3) & 0xff;
      }
      if (b0 == 0x82) {
        return (b1 >>> 5) & 0x07;
      }
    }
    try {
      return inputProtocolFactory
              .getProtocol(FrameInputTransport.of(configuration, payload.duplicate()))
              .readMessageBegin()
              .type
          & 0xff;
    } catch (TException | RuntimeException unreadable) {
      return UNREADABLE;
    }
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

    private Call(ByteBuffer payload, Completion completion) throws TTransportException {
      this.payload = payload;
      this.completion = completion;
      this.output = new FrameOutputTransport(configuration);
      this.in = inputProtocolFactory.getProtocol(FrameInputTransport.of(configuration, payload));
      this.out = outputProtocolFactory.getProtocol(output);
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
        completion.replied(frame, isExceptionReply(frame));
      }
    }

    // libthrift's processors answer an undeclared handler exception themselves, with an
    // INTERNAL_ERROR reply: the reply's own header says whether the call failed. Read in place for
    // strict binary and compact; parsed for other protocols.
    private boolean isExceptionReply(ByteBuffer frame) {
      int p = frame.position() + Framing.HEADER_SIZE;
      if (frame.limit() - p >= 4) {
        int b0 = frame.get(p) & 0xff;
        int b1 = frame.get(p + 1) & 0xff;
        if (b0 == 0x80 && b1 == 0x01) {
          return (frame.get(p + 3) & 0x07) == TMessageType.EXCEPTION;
        }
        if (b0 == 0x82) {
          return ((b1 >>> 5) & 0x07) == TMessageType.EXCEPTION;
        }
      }
      try {
        TProtocol reader =
            outputProtocolFactory.getProtocol(FrameInputTransport.of(configuration, output.payload()));
        return reader.readMessageBegin().type == TMessageType.EXCEPTION;
      } catch (TException | RuntimeException unreadable) {
        // The processor wrote this header; if it cannot be read back, it is sent as it is.
        return false;
      }
    }

    // libthrift's sync processors answer even a oneway request when its arguments are malformed
    // (ProcessFunction) or its method is unknown (TBaseProcessor); a reply nobody awaits would be
    // matched to the caller's next call on a pipelined connection.
    private boolean isOnewayRequest() {
      // Strict binary (80 01 00 type) and compact (82, type << 5 | version) carry the message type
      // in their first bytes; reading it there keeps a header parse off every reply.
      int p = payload.position();
      if (payload.remaining() >= 4) {
        int b0 = payload.get(p) & 0xff;
        int b1 = payload.get(p + 1) & 0xff;
        if (b0 == 0x80 && b1 == 0x01) {
          return (payload.get(p + 3) & 0x07) == TMessageType.ONEWAY;
        }
        if (b0 == 0x82) {
          return ((b1 >>> 5) & 0x07) == TMessageType.ONEWAY;
        }
      }
      try {
        return readHeader(payload).type == TMessageType.ONEWAY;
      } catch (TException e) {
        // The processor read this header already, so it cannot fail here; if it somehow did,
        // sending the processor's response is the stock behaviour.
        return false;
      }
    }

    /**
     * The processor could not produce a response: answer with a {@link TApplicationException}
     * when the request's header can be read, else fail the call.
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
      int type;
      String message;
      if (cause instanceof FrameSizeException) {
        // Only the output transport throws it here: the response outgrew maxFrameSize.
        type = TApplicationException.INTERNAL_ERROR;
        message = "Response to " + request.name + " exceeds maxFrameSize " + maxFrameSize;
      } else if (cause instanceof TProtocolException || cause instanceof TTransportException) {
        type = TApplicationException.PROTOCOL_ERROR;
        message = "Malformed request for " + request.name + ": " + cause.getMessage();
      } else if ((cause instanceof RuntimeException || cause instanceof StackOverflowError)
          && argumentsUnreadable()) {
        type = TApplicationException.PROTOCOL_ERROR;
        message = "Malformed request for " + request.name + ": unreadable arguments (" + cause + ")";
      } else {
        type = TApplicationException.INTERNAL_ERROR;
        message = "Internal error processing " + request.name;
      }
      if (type == TApplicationException.INTERNAL_ERROR) {
        log.error("Unhandled {} in handler for {}", cause.getClass().getName(), request.name, cause);
      } else {
        log.debug("Malformed request for {}", request.name, cause);
      }
      if (request.type == TMessageType.ONEWAY) {
        completion.replied(null, true);
        return;
      }
      ByteBuffer frame;
      try {
        output.reset();
        out.writeMessageBegin(new TMessage(request.name, TMessageType.EXCEPTION, request.seqid));
        new TApplicationException(type, message).write(out);
        out.writeMessageEnd();
        frame = output.toFrame();
      } catch (Throwable t) {
        t.addSuppressed(cause);
        completion.unreadable(t);
        return;
      }
      completion.replied(frame, true);
    }

    // libthrift before 0.25 lets some hostile inputs escape its decoders as runtime exceptions or
    // a stack overflow instead of a TProtocolException: 0.23 reads a negative string length into an
    // IndexOutOfBoundsException, an overlong compact varint past its array, and skips unknown fields
    // without a depth limit. Once the JIT has compiled the decoder such an exception often has no
    // stack trace to say where it came from, so the request is read again: if its arguments
    // cannot be skipped field by field, it is malformed, and the handler was never reached.
    private boolean argumentsUnreadable() {
      try {
        TProtocol reader =
            inputProtocolFactory.getProtocol(FrameInputTransport.of(configuration, payload));
        reader.readMessageBegin();
        TProtocolUtil.skip(reader, TType.STRUCT);
        reader.readMessageEnd();
        return false;
      } catch (TException | RuntimeException | StackOverflowError unreadable) {
        return true;
      }
    }

    private TMessage readHeader(ByteBuffer frame) throws TException {
      TProtocol reader =
          inputProtocolFactory.getProtocol(FrameInputTransport.of(configuration, frame));
      return reader.readMessageBegin();
    }
  }
}
