package io.thriftnio.it.bench;

import io.thriftnio.core.ThriftChannel;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A channel with no socket whose peer never answers: a call on it holds its connection until the
 * channel closes (then it fails). {@code contention} holds a pool's one connection with it.
 */
final class SilentChannel implements ThriftChannel {
  private final InetSocketAddress endpoint;
  private final Set<CompletableFuture<ByteBuffer>> pending = ConcurrentHashMap.newKeySet();
  private volatile boolean open = true;

  SilentChannel(InetSocketAddress endpoint) {
    this.endpoint = endpoint;
  }

  @Override
  public CompletableFuture<ByteBuffer> exchange(ByteBuffer request) {
    CompletableFuture<ByteBuffer> reply = new CompletableFuture<>();
    pending.add(reply);
    return reply;
  }

  @Override
  public CompletableFuture<ByteBuffer> exchange(ByteBuffer request, Duration timeout) {
    return exchange(request);
  }

  @Override
  public CompletableFuture<Void> send(ByteBuffer request) {
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public int callsInFlight() {
    return pending.size();
  }

  @Override
  public boolean isOpen() {
    return open;
  }

  @Override
  public SocketAddress remoteAddress() {
    return endpoint;
  }

  @Override
  public void close() {
    open = false;
    IllegalStateException closed = new IllegalStateException("channel closed");
    for (CompletableFuture<ByteBuffer> f : pending) {
      f.completeExceptionally(closed);
    }
    pending.clear();
  }
}
