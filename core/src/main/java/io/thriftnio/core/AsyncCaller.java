package io.thriftnio.core;

import io.thriftnio.core.util.internal.AsyncCallers;
import io.thriftnio.core.util.internal.Continuations;
import io.thriftnio.core.util.internal.FrameInputTransport;
import io.thriftnio.core.util.internal.FrameOutputTransport;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.IoThreadExchange;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.TServiceClient;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.scheme.StandardScheme;

/**
 * Runs calls through a generated client over a channel; see {@link AsyncClients}, and {@link
 * AsyncCallers} for the channel pool's route to it. Thread-safe: each call uses its own client
 * instance and buffers, and takes the next sequence id of this caller.
 *
 * <p>Encoding and decoding are not size-limited here: the channel enforces its frame limit on the
 * wire, and a request above it fails, not sent, with the channel's {@code TTransportException} of
 * type {@code CORRUPTED_DATA} naming the length and the limit.
 *
 * @param <C> the generated client type
 */
final class AsyncCaller<C extends TServiceClient> implements AsyncCallers.Caller {
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
   * This caller over another channel, typically a view of the same connections with other per-call
   * settings: same client factory, protocol and executor, and this caller's sequence, so calls
   * through either never carry the same sequence id on a connection they share. Cheap (no copy of
   * any buffer): may be made for one call.
   *
   * @param channel a {@link ThriftChannel}: carries the messages of the new caller
   * @return a caller sharing this one's sequence
   */
  @Override
  public AsyncCaller<C> over(Object channel) {
    return new AsyncCaller<>(
        (ThriftChannel) channel, clientFactory, protocolFactory, executor, sequence);
  }

  @Override
  @SuppressWarnings("unchecked") // the pool's AsyncClients.Send and Receive of this caller's client
  public <R> CompletableFuture<R> call(Object send, Object receive) {
    return call((AsyncClients.Send<C>) send, (AsyncClients.Receive<C, R>) receive);
  }

  @Override
  @SuppressWarnings("unchecked") // the pool's AsyncClients.Send and ReceiveVoid
  public CompletableFuture<Void> callVoid(Object send, Object receiveVoid) {
    return callVoid((AsyncClients.Send<C>) send, (AsyncClients.ReceiveVoid<C>) receiveVoid);
  }

  @Override
  @SuppressWarnings("unchecked") // the pool's AsyncClients.Send
  public CompletableFuture<Void> callOneway(Object send) {
    return callOneway((AsyncClients.Send<C>) send);
  }

  @Override
  public <A> A asyncIface(Class<A> asyncIface) {
    return AsyncProxies.ifaceProxy(Objects.requireNonNull(asyncIface, "asyncIface"), this);
  }

  @Override
  public <F> F futureIface(Class<F> futureIface) {
    return AsyncProxies.futureProxy(Objects.requireNonNull(futureIface, "futureIface"), this);
  }

  /**
   * Calls a two-way method.
   *
   * @param send encodes the request, e.g. {@code c -> c.send_echo(payload)}
   * @param receive decodes the reply, e.g. {@code BenchService.Client::recv_echo}
   * @param <R> the result type
   * @return completes, on the executor, with the result or with the exception {@code recv_x} threw
   *     (a declared IDL exception, a {@code TApplicationException}; {@code BAD_SEQUENCE_ID} if the
   *     reply answers another request) or the channel's failure. Never throws.
   */
  <R> CompletableFuture<R> call(AsyncClients.Send<C> send, AsyncClients.Receive<C, R> receive) {
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
                    result.completeExceptionally(AsyncClients.unwrap(failure));
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
   * {@link #call} for a void method, whose {@code recv_x} no {@link AsyncClients.Receive} can take:
   * {@code callVoid(c -> c.send_sleep(10), Client::recv_sleep)} completes with {@code null}.
   */
  CompletableFuture<Void> callVoid(AsyncClients.Send<C> send, AsyncClients.ReceiveVoid<C> receive) {
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
  CompletableFuture<Void> callOneway(AsyncClients.Send<C> send) {
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
                    result.completeExceptionally(AsyncClients.unwrap(failure));
                  } else {
                    result.complete(null);
                  }
                }));
    return result;
  }

  /** Runs the continuation on the executor, inside the attach scopes of the call of {@code f}. */
  private void hop(CompletableFuture<?> f, Runnable task) {
    AsyncClients.execute(executor, Continuations.wrap(task, f));
  }

  private <T> CompletableFuture<T> failedOn(Throwable t) {
    CompletableFuture<T> f = new CompletableFuture<>();
    AsyncClients.execute(executor, () -> f.completeExceptionally(AsyncClients.unwrap(t)));
    return f;
  }

  private Exchange<C> encode(AsyncClients.Send<C> send) throws TException {
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

  private record Exchange<C>(
      C client, FrameInputTransport input, ByteBuffer request, String method) {}
}
