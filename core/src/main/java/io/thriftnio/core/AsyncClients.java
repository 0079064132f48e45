package io.thriftnio.core;

import io.thriftnio.core.util.internal.AsyncCallers;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiFunction;
import org.apache.thrift.TException;
import org.apache.thrift.TServiceClient;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;

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
 * {@code recv_x} would accept any reply. Instead each proxy numbers its requests itself, and a
 * reply must carry its request's number, or the call fails with a {@code TApplicationException} of
 * type {@code BAD_SEQUENCE_ID}: a reply routed to the wrong call on a pipelined channel is caught,
 * whatever the protocol ({@code TTupleProtocol} aside: its generated code cannot run through a
 * protocol decorator, so it keeps the generated client's own check).
 *
 * <pre>
 *   generated client           caller's protocols                 wire
 *   writeMessageBegin(echo, 1) -&gt; seqid replaced by the next number -&gt; (echo, CALL, 7)
 *   readMessageBegin() = 1     &lt;- 7 checked, 1 handed back          &lt;- (echo, REPLY, 7)
 * </pre>
 *
 * <p>Two shapes, over any channel (a {@code ThriftChannelPool} makes both over the pool, with its
 * queue and retries, through its {@code asyncIface} and {@code futureIface}):
 *
 * <pre>{@code
 * BenchService.AsyncIface iface = AsyncClients.asyncIface(BenchService.AsyncIface.class,
 *     channel, BenchService.Client::new, new TCompactProtocol.Factory(), executor);
 * iface.echo(payload, callback);
 *
 * BenchService.FutureIface bench = AsyncClients.futureIface(BenchService.FutureIface.class,
 *     channel, BenchService.Client::new, new TCompactProtocol.Factory(), executor);
 * CompletableFuture<ByteBuffer> f = bench.echo(payload);
 * }</pre>
 */
public final class AsyncClients {

  static {
    AsyncCallers.install(
        (channel, clientFactory, protocolFactory, executor) ->
            newCaller(channel, clientFactory, protocolFactory, executor));
  }

  private AsyncClients() {}

  @SuppressWarnings("unchecked") // the pool's generated client constructor
  private static <C extends TServiceClient> AsyncCaller<C> newCaller(
      Object channel,
      BiFunction<?, ?, ?> clientFactory,
      TProtocolFactory protocolFactory,
      Executor executor) {
    return new AsyncCaller<>(
        (ThriftChannel) channel,
        (BiFunction<TProtocol, TProtocol, C>) clientFactory,
        protocolFactory,
        executor);
  }

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
    AsyncCaller<C> caller = new AsyncCaller<>(channel, clientFactory, protocolFactory, executor);
    return AsyncProxies.ifaceProxy(Objects.requireNonNull(asyncIface, "asyncIface"), caller);
  }

  /**
   * A proxy implementing a generated {@code FutureIface} ({@code --gen java:future_iface}) over a
   * channel: each method encodes with {@code send_x}, decodes with {@code recv_x}, and returns the
   * call's future, completed on {@code executor} ({@code null} for void methods; once written for
   * oneway ones) or exceptionally with what {@code recv_x} threw (a declared exception, a {@code
   * TApplicationException}) or the channel's failure. No method throws; a cancelled future does not
   * stop its call.
   *
   * @param futureIface {@code BenchService.FutureIface.class}, or an interface of its shape
   * @param channel carries the messages
   * @param clientFactory the generated client's two-protocol constructor, {@code
   *     BenchService.Client::new}
   * @param protocolFactory the protocol the server speaks
   * @param executor runs decoding and completes the futures
   * @param <F> the interface type
   * @param <C> the generated client type
   * @return the proxy; thread-safe
   * @throws IllegalArgumentException if {@code futureIface} is not an interface, or naming a method
   *     with no {@code send_x} on the client or not returning {@code CompletableFuture} of what its
   *     {@code recv_x} returns
   */
  public static <F, C extends TServiceClient> F futureIface(
      Class<F> futureIface,
      ThriftChannel channel,
      BiFunction<TProtocol, TProtocol, C> clientFactory,
      TProtocolFactory protocolFactory,
      Executor executor) {
    AsyncCaller<C> caller = new AsyncCaller<>(channel, clientFactory, protocolFactory, executor);
    return AsyncProxies.futureProxy(Objects.requireNonNull(futureIface, "futureIface"), caller);
  }

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
