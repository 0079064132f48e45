package io.thriftnio.core;

import io.thriftnio.core.internal.AsyncProcessorBridge;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
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
 *       ends early yields {@link TApplicationException#PROTOCOL_ERROR}; the calling thread never
 *       sees the throwable;
 *   <li>a frame whose message header cannot be read at all completes exceptionally with a {@link
 *       TException}: there is no sequence id to answer, and the transport should close the
 *       connection.
 * </ul>
 *
 * <p>Thread-safe: one invoker serves every connection of a server.
 */
public final class ProcessorInvoker {

  private static final Logger log = LoggerFactory.getLogger(ProcessorInvoker.class);
  private static final CompletableFuture<ByteBuffer> NO_RESPONSE =
      CompletableFuture.completedFuture(null);

  private final TProcessor processor;
  private final AsyncProcessorBridge asyncBridge;
  private final TProtocolFactory inputProtocolFactory;
  private final TProtocolFactory outputProtocolFactory;
  private final int maxFrameSize;

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
   *     already complete for a synchronous processor
   */
  public CompletableFuture<ByteBuffer> invoke(ByteBuffer payload) {
    Call call;
    try {
      call = new Call(payload);
    } catch (TTransportException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (asyncBridge != null) {
      asyncBridge.process(call);
      return call.result;
    }
    try {
      processor.process(call.in, call.out);
      call.complete();
    } catch (Throwable t) {
      call.fail(t);
    }
    return call.result;
  }

  private TConfiguration newConfiguration() {
    return new TConfiguration(maxFrameSize, maxFrameSize, TConfiguration.DEFAULT_RECURSION_DEPTH);
  }

  /**
   * One request in progress. Package-private methods are the contract with {@link
   * AsyncProcessorBridge}.
   */
  public final class Call {
    private final ByteBuffer payload;
    private final FrameOutputTransport output;
    private final TProtocol in;
    private final TProtocol out;
    private final CompletableFuture<ByteBuffer> result = new CompletableFuture<>();

    private Call(ByteBuffer payload) throws TTransportException {
      TConfiguration configuration = newConfiguration();
      this.payload = payload;
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
      if (result.isDone()) {
        return;
      }
      if (output.payloadSize() == 0) {
        result.complete(null);
      } else {
        result.complete(output.toFrame());
      }
    }

    /**
     * The processor could not produce a response: answer with a {@link TApplicationException}
     * when the request's header can be read, else fail the call.
     */
    public void fail(Throwable cause) {
      if (result.isDone()) {
        return;
      }
      TMessage request;
      try {
        request = readHeader(payload);
      } catch (Throwable unreadable) {
        unreadable.addSuppressed(cause);
        result.completeExceptionally(unreadable);
        return;
      }
      int type = cause instanceof TProtocolException || cause instanceof TTransportException
          ? TApplicationException.PROTOCOL_ERROR
          : TApplicationException.INTERNAL_ERROR;
      String message = type == TApplicationException.PROTOCOL_ERROR
          ? "Malformed request for " + request.name + ": " + cause.getMessage()
          : "Internal error processing " + request.name;
      if (type == TApplicationException.INTERNAL_ERROR) {
        log.error("Unhandled {} in handler for {}", cause.getClass().getName(), request.name, cause);
      } else {
        log.debug("Malformed request for {}", request.name, cause);
      }
      if (request.type == TMessageType.ONEWAY) {
        result.complete(null);
        return;
      }
      try {
        output.reset();
        out.writeMessageBegin(new TMessage(request.name, TMessageType.EXCEPTION, request.seqid));
        new TApplicationException(type, message).write(out);
        out.writeMessageEnd();
        result.complete(output.toFrame());
      } catch (Throwable t) {
        t.addSuppressed(cause);
        result.completeExceptionally(t);
      }
    }

    private TMessage readHeader(ByteBuffer frame) throws TException {
      TConfiguration configuration = newConfiguration();
      TProtocol reader =
          inputProtocolFactory.getProtocol(FrameInputTransport.of(configuration, frame));
      return reader.readMessageBegin();
    }
  }
}
