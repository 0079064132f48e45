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
}
