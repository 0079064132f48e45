package io.thriftnio.testkit;

import io.thriftnio.core.AsyncClients;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.util.internal.AsyncCallers;
import java.lang.invoke.MethodHandles;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;
import org.apache.thrift.TServiceClient;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * The caller behind {@link AsyncClients}' proxies and the channel pool's {@code call}, typed, for
 * tests and the bench: calls through a generated client over any channel, numbering their sequence
 * ids itself. The library keeps it out of its API (the channel pool reaches it through core's
 * internal route, as this class does).
 *
 * @param <C> the generated client type
 */
public final class AsyncCaller<C extends TServiceClient> {
  private final AsyncCallers.Caller caller;

  private AsyncCaller(AsyncCallers.Caller caller) {
    this.caller = caller;
  }

  /**
   * A caller.
   *
   * @param channel carries the messages
   * @param clientFactory the generated client's two-protocol constructor
   * @param protocolFactory the protocol the server speaks
   * @param executor runs decoding and completes the futures
   */
  public static <C extends TServiceClient> AsyncCaller<C> of(
      ThriftChannel channel,
      BiFunction<TProtocol, TProtocol, C> clientFactory,
      TProtocolFactory protocolFactory,
      Executor executor) {
    try {
      MethodHandles.lookup().ensureInitialized(AsyncClients.class);
    } catch (IllegalAccessException impossible) {
      throw new IllegalStateException(impossible);
    }
    return new AsyncCaller<>(
        AsyncCallers.create(channel, clientFactory, protocolFactory, executor));
  }

  /** This caller over another channel, sharing its sequence of ids. */
  public AsyncCaller<C> over(ThriftChannel channel) {
    return new AsyncCaller<>(caller.over(channel));
  }

  /** Calls a two-way method. */
  public <R> CompletableFuture<R> call(
      AsyncClients.Send<C> send, AsyncClients.Receive<C, R> receive) {
    return caller.call(send, receive);
  }

  /** Calls a two-way void method. */
  public CompletableFuture<Void> callVoid(
      AsyncClients.Send<C> send, AsyncClients.ReceiveVoid<C> receive) {
    return caller.callVoid(send, receive);
  }

  /** Sends a oneway method. */
  public CompletableFuture<Void> callOneway(AsyncClients.Send<C> send) {
    return caller.callOneway(send);
  }

  /** An {@code AsyncIface} proxy sharing this caller's sequence. */
  public <A> A asyncIface(Class<A> asyncIface) {
    return caller.asyncIface(asyncIface);
  }

  /** A {@code FutureIface} proxy sharing this caller's sequence. */
  public <F> F futureIface(Class<F> futureIface) {
    return caller.futureIface(futureIface);
  }
}
