package io.thriftnio.core.util.internal;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * A channel that can complete its futures on its IO or timer thread itself, for a caller that hops
 * to its own executor next ({@code AsyncClients}): one hop, not two. The library's pipelined
 * channels implement it; it lives here, below the API package, so that the API package can ask for
 * it without depending on the client internals. Not part of the API.
 */
public interface IoThreadExchange {

  /** {@code ThriftChannel.exchange}, completing on the thread that receives the reply. */
  CompletableFuture<ByteBuffer> exchangeOnIoThread(ByteBuffer request);

  /** {@code ThriftChannel.send}, completing on the thread that wrote the request. */
  CompletableFuture<Void> sendOnIoThread(ByteBuffer request);

  /**
   * Whether the caller's hop to its executor must be wrapped ({@link Continuations#wrap}): the
   * channel's interceptors attach something around a call's continuation. By default not.
   */
  default boolean attachesContinuations() {
    return false;
  }

  /** {@code task}, wrapped ({@link Continuations#wrap}) if {@code channel} attaches. */
  static Runnable continuation(Object channel, Runnable task) {
    return channel instanceof IoThreadExchange
            && ((IoThreadExchange) channel).attachesContinuations()
        ? Continuations.wrap(task)
        : task;
  }
}
