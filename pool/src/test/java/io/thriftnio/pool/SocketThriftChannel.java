package io.thriftnio.pool;

import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.util.internal.FrameSizeException;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.thrift.transport.TTransportException;

/**
 * A minimal pipelining {@link ThriftChannel} over a blocking socket, standing in for the Netty and
 * Grizzly channels: writes under a lock, one reader thread, replies matched first-in, first-out.
 * Records the most calls it ever had in flight. Like them, it refuses a request above its {@code
 * maxFrameSize} with a {@link FrameSizeException}, and a non-positive timeout with an {@link
 * IllegalArgumentException}, before writing anything, and stays usable.
 */
final class SocketThriftChannel implements ThriftChannel {
  final AtomicInteger maxPending = new AtomicInteger();
  private final Socket socket;
  private final DataOutputStream out;
  private final Queue<CompletableFuture<ByteBuffer>> pending = new ConcurrentLinkedQueue<>();
  private final AtomicInteger pendingCount = new AtomicInteger();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final int maxFrameSize;

  private SocketThriftChannel(Socket socket, int maxFrameSize) throws IOException {
    this.socket = socket;
    this.maxFrameSize = maxFrameSize;
    this.out = new DataOutputStream(socket.getOutputStream());
    DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
    Thread reader = new Thread(() -> read(in), "test-channel-reader");
    reader.setDaemon(true);
    reader.start();
  }

  static SocketThriftChannel connect(InetSocketAddress endpoint) throws IOException {
    return connect(endpoint, Integer.MAX_VALUE);
  }

  static SocketThriftChannel connect(InetSocketAddress endpoint, int maxFrameSize)
      throws IOException {
    Socket s = new Socket();
    try {
      s.setTcpNoDelay(true);
      s.connect(endpoint, 5000);
      return new SocketThriftChannel(s, maxFrameSize);
    } catch (IOException e) {
      s.close();
      throw e;
    }
  }

  private void read(DataInputStream in) {
    try {
      while (true) {
        int length = in.readInt();
        byte[] frame = new byte[length];
        in.readFully(frame);
        CompletableFuture<ByteBuffer> f = pending.poll();
        pendingCount.decrementAndGet();
        if (f == null) {
          throw new IOException("reply with no call waiting");
        }
        f.complete(ByteBuffer.wrap(frame));
      }
    } catch (IOException e) {
      close();
    }
  }

  @Override
  public CompletableFuture<ByteBuffer> exchange(ByteBuffer request) {
    return exchange(request, Duration.ofSeconds(30));
  }

  @Override
  public CompletableFuture<ByteBuffer> exchange(ByteBuffer request, Duration timeout) {
    if (timeout.isNegative() || timeout.isZero()) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException("timeout: " + timeout + " (expected: > 0)"));
    }
    if (request.remaining() > maxFrameSize) {
      return CompletableFuture.failedFuture(
          new FrameSizeException(request.remaining(), maxFrameSize, remoteAddress()));
    }
    CompletableFuture<ByteBuffer> f = new CompletableFuture<>();
    synchronized (this) {
      if (closed.get()) {
        return CompletableFuture.failedFuture(
            new TTransportException(TTransportException.NOT_OPEN, "closed"));
      }
      pending.add(f);
      maxPending.accumulateAndGet(pendingCount.incrementAndGet(), Math::max);
      try {
        write(request);
      } catch (IOException e) {
        close();
      }
    }
    f.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .whenComplete(
            (r, t) -> {
              if (t instanceof java.util.concurrent.TimeoutException) {
                close();
              }
            });
    return f;
  }

  @Override
  public synchronized CompletableFuture<Void> send(ByteBuffer request) {
    try {
      write(request);
      return CompletableFuture.completedFuture(null);
    } catch (IOException e) {
      close();
      return CompletableFuture.failedFuture(new TTransportException(e));
    }
  }

  private void write(ByteBuffer request) throws IOException {
    ByteBuffer b = request.duplicate();
    byte[] bytes = new byte[b.remaining()];
    b.get(bytes);
    out.writeInt(bytes.length);
    out.write(bytes);
    out.flush();
  }

  @Override
  public int callsInFlight() {
    return pendingCount.get();
  }

  @Override
  public boolean isOpen() {
    return !closed.get();
  }

  @Override
  public SocketAddress remoteAddress() {
    return socket.getRemoteSocketAddress();
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      socket.close();
    } catch (IOException e) {
      // Closing is best effort in this test double.
    }
    CompletableFuture<ByteBuffer> f;
    while ((f = pending.poll()) != null) {
      f.completeExceptionally(
          new TTransportException(TTransportException.END_OF_FILE, "channel closed"));
    }
  }
}
