package io.thriftnio.core;

import io.thriftnio.core.util.internal.Continuations;
import io.thriftnio.core.util.internal.FrameInputTransport;
import io.thriftnio.core.util.internal.FrameOutputTransport;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.IoThreadExchange;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.TServiceClient;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.scheme.StandardScheme;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asynchronous calls through a generated Thrift {@code Client} over any {@link ThriftChannel}.
 *
 * <p>A generated synchronous client already knows how to encode a call ({@code send_echo}) and
 * decode its reply ({@code recv_echo}). This bridge runs the first into a buffer, hands the buffer
 * to the channel, and runs the second on the response, so no {@code TAsyncClientManager} (with its
 * single selector thread and one call at a time) is involved. Decoding and callbacks run on the
 * executor given here, never on the channel's IO thread; if the executor rejects a task (shut down,
 * or saturated), it runs on the thread that completed the exchange instead, so a future always
 * completes.
 *
 * <p>A fresh generated client encodes each call, so every request would carry sequence id 1 and
 * {@code recv_x} would accept any reply. Instead each {@link AsyncCaller} numbers its requests
 * itself, and a reply must carry its request's number, or the call fails with a {@code
 * TApplicationException} of type {@code BAD_SEQUENCE_ID}: a reply routed to the wrong call on a
 * pipelined channel is caught, whatever the protocol ({@code TTupleProtocol} aside: its generated
 * code cannot run through a protocol decorator, so it keeps the generated client's own check).
 *
 * <pre>
 *   generated client           caller's protocols                 wire
 *   writeMessageBegin(echo, 1) -&gt; seqid replaced by the next number -&gt; (echo, CALL, 7)
 *   readMessageBegin() = 1     &lt;- 7 checked, 1 handed back          &lt;- (echo, REPLY, 7)
 * </pre>
 *
 * <p>Two shapes:
 *
 * <pre>{@code
 * AsyncCaller<BenchService.Client> caller =
 *     AsyncClients.caller(channel, BenchService.Client::new, new TCompactProtocol.Factory(), executor);
 * CompletableFuture<ByteBuffer> f = caller.call(c -> c.send_echo(payload), BenchService.Client::recv_echo);
 *
 * BenchService.AsyncIface iface = AsyncClients.asyncIface(BenchService.AsyncIface.class,
 *     channel, BenchService.Client::new, new TCompactProtocol.Factory(), executor);
 * iface.echo(payload, callback);
 * }</pre>
 */
public final class AsyncClients {

  private static final Logger log = LoggerFactory.getLogger(AsyncClients.class);

  private AsyncClients() {}

  /** Encodes one call on a generated client: for example {@code c -> c.send_echo(payload)}. */
  @FunctionalInterface
  public interface Send<C> {
    /** Writes the request through {@code client}'s output protocol. */
    void send(C client) throws TException;
  }

  /**
   * Decodes one reply on a generated client: for example {@code BenchService.Client::recv_echo}.
   */
  @FunctionalInterface
  public interface Receive<C, R> {
    /** Reads the reply through {@code client}'s input protocol. */
    R receive(C client) throws TException;
  }

  /** Decodes a void method's reply, e.g. {@code BenchService.Client::recv_sleep}. */
  @FunctionalInterface
  public interface ReceiveVoid<C> {
    /** Reads the reply through {@code client}'s input protocol; throws what it carries. */
    void receive(C client) throws TException;
  }

  /**
   * Creates a caller.
   *
   * @param channel carries the messages
   * @param clientFactory the generated client's two-protocol constructor, {@code
   *     BenchService.Client::new}
   * @param protocolFactory the protocol the server speaks
   * @param executor runs decoding and completes the futures; never the channel's IO thread unless
   *     the caller passes a direct executor on purpose
   * @param <C> the generated client type
   * @return the caller
   */
  public static <C extends TServiceClient> AsyncCaller<C> caller(
      ThriftChannel channel,
      BiFunction<TProtocol, TProtocol, C> clientFactory,
      TProtocolFactory protocolFactory,
      Executor executor) {
    return new AsyncCaller<>(channel, clientFactory, protocolFactory, executor);
  }

  /**
   * A proxy implementing a generated {@code AsyncIface} over a channel. Each method encodes with
   * the generated client's {@code send_x}, and decodes with {@code recv_x}; oneway methods (no
   * {@code recv_x}) complete their callback with {@code null} once written. Callbacks run on {@code
   * executor}.
   *
   * @param asyncIface the generated interface, {@code BenchService.AsyncIface.class}
   * @param channel carries the messages
   * @param clientFactory the generated client's two-protocol constructor, {@code
   *     BenchService.Client::new}
   * @param protocolFactory the protocol the server speaks
   * @param executor runs decoding and callbacks
   * @param <A> the async interface type
   * @param <C> the generated client type
   * @return the proxy
   * @throws IllegalArgumentException if {@code asyncIface} is not an interface, or a method has no
   *     matching {@code send_x} on the client
   */
  public static <A, C extends TServiceClient> A asyncIface(
      Class<A> asyncIface,
      ThriftChannel channel,
      BiFunction<TProtocol, TProtocol, C> clientFactory,
      TProtocolFactory protocolFactory,
      Executor executor) {
    AsyncCaller<C> caller = caller(channel, clientFactory, protocolFactory, executor);
    return AsyncProxies.ifaceProxy(asyncIface, caller);
  }

  /**
   * A proxy implementing a generated {@code AsyncIface} over {@code caller}, as {@link
   * #asyncIface(Class, ThriftChannel, BiFunction, TProtocolFactory, Executor)} does. Its calls take
   * their sequence ids from the caller, so they never repeat an id of the caller's own calls or of
   * another proxy made from it.
   *
   * @param asyncIface the generated interface, {@code BenchService.AsyncIface.class}
   * @param caller encodes, sends and decodes; its executor runs the callbacks
   * @param <A> the async interface type
   * @param <C> the generated client type
   * @return the proxy
   * @throws IllegalArgumentException if {@code asyncIface} is not an interface, or a method has no
   *     matching {@code send_x} on the client
   */
  public static <A, C extends TServiceClient> A asyncIface(
      Class<A> asyncIface, AsyncCaller<C> caller) {
    return AsyncProxies.ifaceProxy(
        Objects.requireNonNull(asyncIface, "asyncIface"), Objects.requireNonNull(caller, "caller"));
  }

  /**
   * A proxy implementing a generated {@code FutureIface} ({@code --gen java:future_iface}) over
   * {@code caller}: each method encodes with {@code send_x}, decodes with {@code recv_x}, and
   * returns the call's future, completed on the caller's executor ({@code null} for void methods;
   * once written for oneway ones) or exceptionally with what {@code recv_x} threw (a declared
   * exception, a {@code TApplicationException}) or the channel's failure. No method throws; a
   * cancelled future does not stop its call. Sequence ids come from the caller.
   *
   * @param futureIface {@code BenchService.FutureIface.class}, or an interface of its shape
   * @param caller encodes, sends and decodes; its executor completes the futures
   * @param <F> the interface type
   * @param <C> the generated client type
   * @return the proxy; thread-safe
   * @throws IllegalArgumentException if {@code futureIface} is not an interface, or naming a method
   *     with no {@code send_x} on the client or not returning {@code CompletableFuture} of what its
   *     {@code recv_x} returns
   */
  public static <F, C extends TServiceClient> F futureIface(
      Class<F> futureIface, AsyncCaller<C> caller) {
    return AsyncProxies.futureProxy(
        Objects.requireNonNull(futureIface, "futureIface"),
        Objects.requireNonNull(caller, "caller"));
  }

  /**
   * Runs calls through a generated client over a channel; see {@link AsyncClients}. Thread-safe:
   * each call uses its own client instance and buffers, and takes the next sequence id of this
   * caller.
   *
   * <p>Encoding and decoding are not size-limited here: the channel enforces its frame limit on the
   * wire, and a request above it fails, not sent, with the channel's {@code TTransportException} of
   * type {@code CORRUPTED_DATA} naming the length and the limit.
   *
   * @param <C> the generated client type
   */
  public static final class AsyncCaller<C extends TServiceClient> {
    // The bridge's own buffers take any size the channel accepts (libthrift's default would cap
    // requests at 16,384,000 bytes whatever the channel allows); the recursion limit stays.
    private static final TConfiguration BRIDGE_CONFIGURATION =
        new TConfiguration(
            Integer.MAX_VALUE, Integer.MAX_VALUE, TConfiguration.DEFAULT_RECURSION_DEPTH);

    private final ThriftChannel channel;
    private final BiFunction<TProtocol, TProtocol, C> clientFactory;
    private final TProtocolFactory protocolFactory;
    final Executor executor;
    private final TConfiguration configuration = BRIDGE_CONFIGURATION;

    /** A request past the bridge's (array-sized) limit. */
    private static final FrameOutputTransport.Overflow OVERFLOW =
        (size, max) -> new FrameSizeException(size, max, null);

    private final AtomicInteger sequence;

    AsyncCaller(
        ThriftChannel channel,
        BiFunction<TProtocol, TProtocol, C> clientFactory,
        TProtocolFactory protocolFactory,
        Executor executor) {
      this(channel, clientFactory, protocolFactory, executor, new AtomicInteger());
    }

    private AsyncCaller(
        ThriftChannel channel,
        BiFunction<TProtocol, TProtocol, C> clientFactory,
        TProtocolFactory protocolFactory,
        Executor executor,
        AtomicInteger sequence) {
      this.channel = Objects.requireNonNull(channel, "channel");
      this.clientFactory = Objects.requireNonNull(clientFactory, "clientFactory");
      this.protocolFactory = Objects.requireNonNull(protocolFactory, "protocolFactory");
      this.executor = Objects.requireNonNull(executor, "executor");
      this.sequence = sequence;
    }

    /**
     * This caller over another channel, typically a view of the same connections with other
     * per-call settings: same client factory, protocol and executor, and this caller's sequence, so
     * calls through either never carry the same sequence id on a connection they share. Cheap (no
     * copy of any buffer): may be made for one call.
     *
     * @param channel carries the messages of the new caller
     * @return a caller sharing this one's sequence
     */
    public AsyncCaller<C> over(ThriftChannel channel) {
      return new AsyncCaller<>(channel, clientFactory, protocolFactory, executor, sequence);
    }

    /**
     * Calls a two-way method.
     *
     * @param send encodes the request, e.g. {@code c -> c.send_echo(payload)}
     * @param receive decodes the reply, e.g. {@code BenchService.Client::recv_echo}
     * @param <R> the result type
     * @return completes, on the executor, with the result or with the exception {@code recv_x}
     *     threw (a declared IDL exception, a {@code TApplicationException}; {@code BAD_SEQUENCE_ID}
     *     if the reply answers another request) or the channel's failure. Never throws.
     */
    public <R> CompletableFuture<R> call(Send<C> send, Receive<C, R> receive) {
      Exchange<C> ex;
      CompletableFuture<ByteBuffer> reply;
      try {
        ex = encode(send);
        // Our channels complete on their IO thread here, so the executor below is the only hop.
        reply =
            channel instanceof IoThreadExchange
                ? ((IoThreadExchange) channel).exchangeOnIoThread(ex.request())
                : channel.exchange(ex.request());
      } catch (Throwable t) {
        return failedOn(t);
      }
      CompletableFuture<R> result = new Continuations.CallFuture<>();
      reply.whenComplete(
          (response, failure) ->
              hop(
                  reply,
                  () -> {
                    Continuations.adopt(result); // for dependents registered after it completes
                    if (failure != null) {
                      result.completeExceptionally(unwrap(failure));
                      return;
                    }
                    try {
                      ex.input().reset(response);
                      result.complete(receive.receive(ex.client()));
                    } catch (Throwable t) {
                      result.completeExceptionally(
                          SeqidProtocols.unreadableReply(t, ex.method(), channel.remoteAddress()));
                    }
                  }));
      return result;
    }

    /**
     * {@link #call} for a void method, whose {@code recv_x} no {@link Receive} can take: {@code
     * callVoid(c -> c.send_sleep(10), Client::recv_sleep)} completes with {@code null}.
     */
    public CompletableFuture<Void> callVoid(Send<C> send, ReceiveVoid<C> receive) {
      Objects.requireNonNull(receive, "receive");
      return call(
          send,
          client -> {
            receive.receive(client);
            return null;
          });
    }

    /**
     * Sends a oneway method.
     *
     * @param send encodes the request, e.g. {@code c -> c.send_fire(payload)}
     * @return completes, on the executor, once the message is written. Never throws.
     */
    public CompletableFuture<Void> callOneway(Send<C> send) {
      CompletableFuture<Void> written;
      try {
        ByteBuffer request = encode(send).request();
        written =
            channel instanceof IoThreadExchange
                ? ((IoThreadExchange) channel).sendOnIoThread(request)
                : channel.send(request);
      } catch (Throwable t) {
        return failedOn(t);
      }
      CompletableFuture<Void> result = new Continuations.CallFuture<>();
      written.whenComplete(
          (ok, failure) ->
              hop(
                  written,
                  () -> {
                    Continuations.adopt(result); // for dependents registered after it completes
                    if (failure != null) {
                      result.completeExceptionally(unwrap(failure));
                    } else {
                      result.complete(null);
                    }
                  }));
      return result;
    }

    /** Runs the continuation on the executor, inside the attach scopes of the call of {@code f}. */
    private void hop(CompletableFuture<?> f, Runnable task) {
      execute(executor, Continuations.wrap(task, f));
    }

    private <T> CompletableFuture<T> failedOn(Throwable t) {
      CompletableFuture<T> f = new CompletableFuture<>();
      execute(executor, () -> f.completeExceptionally(unwrap(t)));
      return f;
    }

    private Exchange<C> encode(Send<C> send) throws TException {
      FrameOutputTransport output = new FrameOutputTransport(configuration, OVERFLOW);
      FrameInputTransport input = new FrameInputTransport(configuration);
      TProtocol out = protocolFactory.getProtocol(output);
      TProtocol in = protocolFactory.getProtocol(input);
      // Generated code picks its scheme by the protocol's getScheme(), and TTupleProtocol's tuple
      // scheme casts the protocol to TTupleProtocol: no decorator can stand in for such a protocol
      // (libthrift's TMultiplexedProtocol has the same limit). Those calls keep the generated
      // client's own check, seqid 1 against seqid 1.
      if (out.getScheme() == StandardScheme.class && in.getScheme() == StandardScheme.class) {
        SeqidProtocols.SequencingOutput sequenced =
            new SeqidProtocols.SequencingOutput(out, sequence);
        out = sequenced;
        in = new SeqidProtocols.SequenceCheckingInput(in, sequenced, channel, input);
      }
      C client = clientFactory.apply(in, out);
      send.send(client);
      String method =
          out instanceof SeqidProtocols.SequencingOutput sequenced ? sequenced.method : null;
      return new Exchange<>(client, input, output.payload(), method);
    }

    Class<?> sampleClientClass() {
      try {
        FrameInputTransport t = new FrameInputTransport(configuration);
        return clientFactory
            .apply(protocolFactory.getProtocol(t), protocolFactory.getProtocol(t))
            .getClass();
      } catch (TException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  private record Exchange<C>(
      C client, FrameInputTransport input, ByteBuffer request, String method) {}

  /**
   * Runs {@code task} on {@code executor}, or on this thread if the executor rejects it (shut down,
   * or its queue full): a completion run on the wrong thread is better than a future that never
   * completes.
   */
  static void execute(Executor executor, Runnable task) {
    try {
      executor.execute(task);
    } catch (RejectedExecutionException rejected) {
      task.run();
    }
  }

  static Throwable unwrap(Throwable t) {
    while ((t instanceof java.util.concurrent.CompletionException
            || t instanceof java.util.concurrent.ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
