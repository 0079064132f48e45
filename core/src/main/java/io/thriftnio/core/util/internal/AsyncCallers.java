package io.thriftnio.core.util.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * The route from the library's other modules (the channel pool) to the caller behind {@code
 * AsyncClients}, which the API keeps to itself: {@code AsyncClients} installs the factory when it
 * is initialized; a user of this class initializes {@code AsyncClients} first. This package names
 * no API type, hence the {@code Object}s: a {@code ThriftChannel} for a channel, an {@code
 * AsyncClients.Send} for a send, an {@code AsyncClients.Receive} or {@code ReceiveVoid} for a
 * receive. Not an API.
 */
public final class AsyncCallers {
  private static volatile Factory factory;

  private AsyncCallers() {}

  /**
   * Runs calls through a generated client over a channel, numbering their sequence ids itself; see
   * {@code AsyncClients}. Thread-safe.
   */
  public interface Caller {
    /** This caller over another channel, sharing its sequence of ids. */
    Caller over(Object channel);

    /** Calls a two-way method: {@code send} encodes, {@code receive} decodes. Never throws. */
    <R> CompletableFuture<R> call(Object send, Object receive);

    /** Calls a two-way void method. Never throws. */
    CompletableFuture<Void> callVoid(Object send, Object receiveVoid);

    /** Sends a oneway method. Never throws. */
    CompletableFuture<Void> callOneway(Object send);

    /** A generated {@code AsyncIface} proxy over this caller. */
    <A> A asyncIface(Class<A> asyncIface);

    /** A generated {@code FutureIface} proxy over this caller. */
    <F> F futureIface(Class<F> futureIface);
  }

  /** Makes callers. */
  public interface Factory {
    /**
     * A caller.
     *
     * @param channel a {@code ThriftChannel}
     * @param clientFactory the generated client's two-protocol constructor
     */
    Caller create(
        Object channel,
        BiFunction<?, ?, ?> clientFactory,
        TProtocolFactory protocolFactory,
        Executor executor);
  }

  /** Installed once, by {@code AsyncClients}' static initializer. */
  public static void install(Factory f) {
    factory = f;
  }

  /**
   * A caller; the caller of this method has initialized {@code AsyncClients} (its static
   * initializer installs the factory).
   */
  public static Caller create(
      Object channel,
      BiFunction<?, ?, ?> clientFactory,
      TProtocolFactory protocolFactory,
      Executor executor) {
    return factory.create(channel, clientFactory, protocolFactory, executor);
  }
}
