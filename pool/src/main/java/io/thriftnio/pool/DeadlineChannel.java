package io.thriftnio.pool;

import io.thriftnio.core.ThriftChannel;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link MultiplexedPool} as a channel whose exchanges end at a deadline of their own instead of
 * the pool's call deadline; see {@link MultiplexedPool#withDeadline}. Owns nothing: closing it does
 * nothing.
 */
final class DeadlineChannel implements ThriftChannel {
  private final MultiplexedPool pool;
  private final long deadlineNanos;

  DeadlineChannel(MultiplexedPool pool, long deadlineNanos) {
    this.pool = pool;
    this.deadlineNanos = deadlineNanos;
  }

  @Override
  public CompletableFuture<ByteBuffer> exchange(ByteBuffer request) {
    return exchange(request, null);
  }

  @Override
  public CompletableFuture<ByteBuffer> exchange(ByteBuffer request, Duration timeout) {
    return pool.exchange(request, timeout, deadlineNanos);
  }

  @Override
  public CompletableFuture<Void> send(ByteBuffer request) {
    return pool.send(request);
  }

  @Override
  public int callsInFlight() {
    return pool.callsInFlight();
  }

  @Override
  public boolean isOpen() {
    return pool.isOpen();
  }

  @Override
  public SocketAddress remoteAddress() {
    return pool.remoteAddress();
  }

  @Override
  public void close() {
    // A view of one call's deadline: the pool's owner closes the pool.
  }
}
