package io.thriftnio.core.internal.server;

import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ServerConfig;
import io.thriftnio.core.ServerInterceptor;
import io.thriftnio.core.sasl.SaslIdentity;
import io.thriftnio.core.util.internal.CallConnection;
import io.thriftnio.core.util.internal.FrameInputTransport;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.Framing;
import io.thriftnio.core.util.internal.PeerMemory;
import io.thriftnio.core.util.internal.ProtocolBytes;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.TAsyncProcessor;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.TProcessor;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TTransportException;

/**
 * Runs a Thrift processor for one request frame and yields the response frame.
 *
 * <p>Both processor kinds are supported: a synchronous {@link TProcessor} (including {@link
 * org.apache.thrift.TMultiplexedProcessor}) runs on the calling thread; a {@link TAsyncProcessor}
 * (a generated {@code AsyncProcessor}) completes whenever its handler calls back. Input and output
 * protocol factories may differ.
 *
 * <p>Outcomes of {@link #invoke(ByteBuffer)}: a two-way call completes with the response frame
 * (length prefix included), a oneway call with {@code null} (nothing is sent back). A handler that
 * throws an undeclared exception, or an {@link Error}, yields a {@link
 * TApplicationException#INTERNAL_ERROR} reply for the caller's sequence id; a message that ends
 * early, or whose arguments libthrift cannot decode, yields {@link
 * TApplicationException#PROTOCOL_ERROR}; the calling thread never sees the throwable. A message
 * whose type is neither {@code CALL} nor {@code ONEWAY} yields {@link
 * TApplicationException#PROTOCOL_ERROR} without running the processor (stock processors would run
 * the handler for it). Bytes after a whole message, inside its frame, are ignored, as by every
 * stock processor. A frame whose message header cannot be read at all completes exceptionally with
 * a {@link TException}: there is no sequence id to answer, and the transport should close the
 * connection.
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
     * The reply's own headers ({@link ServerCallContext#setResponseHeader}), once the call has
     * ended and before {@link #replied}; not called when none was set. Default: ignored.
     *
     * @param headers the headers, read-only, in the order they were set
     */
    default void responseHeaders(Map<String, String> headers) {}

    /**
     * The caller's deadline ({@link ServerCallContext#CLIENT_TIMEOUT_HEADER}) passed before the
     * handler could start: the call is answered {@code INTERNAL_ERROR} without running it ({@link
     * #replied} follows). For the server call path, which counts it; not part of the API. Default:
     * nothing.
     */
    default void deadlinePassed() {}

    /**
     * The request's message header cannot be read: there is no sequence id to answer, and the
     * connection should be closed.
     *
     * @param cause why, with the bytes' story where libthrift tells it
     */
    void unreadable(Throwable cause);

    /**
     * The connection the call came on, for {@link ServerCallContext}: its addresses and TLS
     * session. Default: {@code null}, unknown (the context's addresses are then {@code null}).
     */
    default CallConnection<SaslIdentity> connection() {
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

    /**
     * How long the call waited between its arrival and its start (for a worker, or behind its
     * connection's earlier calls), in nanoseconds, for {@link ServerCallContext#queueTime()}.
     * Default: 0.
     */
    default long queuedNanos() {
      return 0;
    }

    /** The request's headers, for {@link ServerCallContext#headers()}. Default: none. */
    default Map<String, String> requestHeaders() {
      return Map.of();
    }

    /**
     * The invoker has begun the call, before any interceptor or the processor runs: running {@code
     * timeOut} ends the call as timed out (its result, if it ever comes, is discarded, and the
     * interceptors see {@link CallOutcome#TIMED_OUT} once); idempotent, from any thread. For the
     * server call path; not part of the API. Default: nothing.
     */
    default void started(Runnable timeOut) {}

    /**
     * Called once when the call has ended on its own, before the interceptors see its outcome and
     * before {@link #replied} or {@link #unreadable}: whether its result is still wanted. {@code
     * false} when the server has already answered the call (its {@link
     * ServerBuilder#handlerTimeout} passed): the result is then discarded, and neither method is
     * called. For the server call path; not part of the API. Default: {@code true}.
     */
    default boolean claimReply() {
      return true;
    }
  }

  private static final ServerInterceptor[] NO_INTERCEPTORS = new ServerInterceptor[0];

  private final TProcessor processor;
  private final TAsyncProcessor asyncProcessor;
  private final AsyncProcessorBridge asyncBridge;
  final ServerInterceptor[] interceptors;

  /** Those of {@link #interceptors} that override {@code attach}, decided once here. */
  final ServerInterceptor[] attaching;

  final TProtocolFactory inputProtocolFactory;
  final TProtocolFactory outputProtocolFactory;
  private final int maxFrameSize;
  // Shared by every call: protocols and transports only read it.
  final TConfiguration configuration;
  final Codecs codecs;

  /** The requests' protocol ({@code TBinaryProtocol}), or {@code null} for another. */
  final String protocolName;

  /** The peers told of a request in another protocol ({@link InvokerCall}), once each. */
  final PeerMemory protocolHints = new PeerMemory();

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
    this.attaching = ServerInterception.attaching(interceptors);
    this.asyncBridge = asyncProcessor == null ? null : new AsyncProcessorBridge(asyncProcessor);
    this.inputProtocolFactory =
        Objects.requireNonNull(inputProtocolFactory, "inputProtocolFactory");
    this.outputProtocolFactory =
        Objects.requireNonNull(outputProtocolFactory, "outputProtocolFactory");
    this.maxFrameSize = Framing.checkMaxFrameSize(maxFrameSize);
    this.configuration =
        new TConfiguration(maxFrameSize, maxFrameSize, TConfiguration.DEFAULT_RECURSION_DEPTH);
    this.codecs = new Codecs(configuration, inputProtocolFactory, outputProtocolFactory);
    this.protocolName = protocolName(inputProtocolFactory, configuration);
  }

  private static String protocolName(TProtocolFactory factory, TConfiguration configuration) {
    try {
      return ProtocolBytes.protocolName(
          factory.getProtocol(new FrameInputTransport(configuration)));
    } catch (TTransportException | RuntimeException e) {
      return null;
    }
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

  /**
   * The invoker of a handler in a pipeline of the user's (Netty's {@code ThriftServerHandler},
   * Grizzly's {@code ThriftServerFilter}): {@code protocol} for requests and replies, payloads up
   * to libthrift's default frame size (16,384,000 bytes), {@code interceptors} around every call,
   * first to run first.
   *
   * @throws NullPointerException if an argument or an interceptor is {@code null}
   */
  public static ProcessorInvoker forPipeline(
      TProcessor processor,
      TProtocolFactory protocol,
      List<? extends ServerInterceptor> interceptors) {
    return of(processor, protocol, protocol, Framing.DEFAULT_MAX_FRAME_SIZE)
        .withInterceptors(interceptors);
  }

  /**
   * As {@link #forPipeline(TProcessor, TProtocolFactory, List)}, for an asynchronous processor.
   *
   * @throws NullPointerException if an argument or an interceptor is {@code null}
   */
  public static ProcessorInvoker forPipeline(
      TAsyncProcessor processor,
      TProtocolFactory protocol,
      List<? extends ServerInterceptor> interceptors) {
    return ofAsync(processor, protocol, protocol, Framing.DEFAULT_MAX_FRAME_SIZE)
        .withInterceptors(interceptors);
  }

  /** An invoker for the processor, protocols and interceptors of a server configuration. */
  public static ProcessorInvoker of(ServerConfig config) {
    TProtocolFactory in = config.inputProtocolFactory();
    TProtocolFactory out = config.outputProtocolFactory();
    int max = config.maxFrameSize();
    ProcessorInvoker invoker =
        config.processor() != null
            ? of(config.processor(), in, out, max)
            : ofAsync(config.asyncProcessor(), in, out, max);
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
    return with(inputProtocolFactory, outputProtocolFactory, chain);
  }

  /**
   * This invoker's processor and interceptors with {@code protocol} for requests and replies, for a
   * wire kind whose requests name their protocol (THeader). For the server call path.
   */
  public ProcessorInvoker withProtocol(TProtocolFactory protocol) {
    return with(protocol, protocol, interceptors);
  }

  private ProcessorInvoker with(TProtocolFactory in, TProtocolFactory out, ServerInterceptor[] c) {
    return new ProcessorInvoker(processor, asyncProcessor, in, out, maxFrameSize, c);
  }

  /** The interceptors around every call, first to run first. */
  public List<ServerInterceptor> interceptors() {
    return List.of(interceptors);
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
    InvokerCall call;
    try {
      codec = asyncBridge == null ? codecs.borrow() : codecs.fresh();
      call = new InvokerCall(this, payload, completion, codec);
    } catch (TTransportException e) {
      completion.unreadable(e);
      return;
    }
    completion.started(call);
    if (asyncBridge != null) {
      CallRunner.runAsync(this, asyncBridge, payload, call);
      return;
    }
    boolean clean = false;
    try {
      clean = CallRunner.runSync(this, processor, payload, call);
    } catch (Throwable t) {
      call.fail(t);
    } finally {
      codecs.giveBack(codec, clean);
    }
  }
}
