package io.thriftnio.pool;

import io.thriftnio.core.ThriftChannel;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** A channel with no socket: open until closed, takes oneway frames, refuses exchanges. */
class OpenChannel implements ThriftChannel {
  private final InetSocketAddress endpoint;
  private volatile boolean open = true;

  OpenChannel(InetSocketAddress endpoint) {
    this.endpoint = endpoint;
  }

  @Override
  public CompletableFuture<ByteBuffer> exchange(ByteBuffer request) {
    return CompletableFuture.failedFuture(new UnsupportedOperationException("oneway only"));
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
    return 0;
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
  }
}
