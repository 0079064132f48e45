package io.thriftnio.testkit;

import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.internal.server.ProcessorInvoker;
import io.thriftnio.core.util.internal.Framing;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.thrift.transport.TTransportException;

/**
 * A {@link ThriftChannel} without a network: each request runs through a {@link ProcessorInvoker}
 * on a single "IO" thread named {@value #IO_THREAD} (or inline on the caller's thread), and the
 * response frame's length prefix is stripped, as a real channel's decoder would. {@link #failWith}
 * makes every later call fail.
 */
final class InMemoryChannel implements ThriftChannel {
  static final String IO_THREAD = "in-memory-io";

  private final ProcessorInvoker invoker;
  private final ExecutorService io =
      Executors.newSingleThreadExecutor(r -> new Thread(r, IO_THREAD));
  private final AtomicInteger pending = new AtomicInteger();
  private volatile Throwable failure;
  private volatile boolean open = true;

  private final boolean inline;

  InMemoryChannel(ProcessorInvoker invoker) {
    this(invoker, false);
  }

  /**
   * @param inline run the invoker on the calling thread, so that futures are complete when {@code
   *     exchange} and {@code send} return (the fastest possible peer)
   */
  InMemoryChannel(ProcessorInvoker invoker, boolean inline) {
    this.invoker = invoker;
    this.inline = inline;
  }

  /** Every later exchange and send fails with {@code failure}, as a broken connection would. */
  void failWith(Throwable failure) {
    this.failure = failure;
  }

  @Override
  public CompletableFuture<ByteBuffer> exchange(ByteBuffer request) {
    return exchange(request, Duration.ofSeconds(30));
  }

  @Override
  public CompletableFuture<ByteBuffer> exchange(ByteBuffer request, Duration timeout) {
    return run(request)
        .thenApply(
            frame -> {
              if (frame == null) {
                throw new IllegalStateException("no response: was a oneway message exchanged?");
              }
              ByteBuffer b = frame.duplicate();
              b.position(b.position() + Framing.HEADER_SIZE);
              return b.slice();
            });
  }

  @Override
  public CompletableFuture<Void> send(ByteBuffer request) {
    return run(request).thenApply(frame -> null);
  }

  private CompletableFuture<ByteBuffer> run(ByteBuffer request) {
    CompletableFuture<ByteBuffer> result = new CompletableFuture<>();
    if (!open) {
      result.completeExceptionally(new TTransportException(TTransportException.NOT_OPEN, "closed"));
      return result;
    }
    // Copy, as a channel writing to a socket would: the caller may reuse its buffer afterwards.
    ByteBuffer copy = ByteBuffer.allocate(request.remaining()).put(request.duplicate()).flip();
    pending.incrementAndGet();
    Executor runner = inline ? Runnable::run : io;
    runner.execute(
        () -> {
          Throwable f = failure;
          if (f != null) {
            pending.decrementAndGet();
            result.completeExceptionally(f);
            return;
          }
          invoker
              .invoke(copy)
              .whenComplete(
                  (frame, error) -> {
                    pending.decrementAndGet();
                    if (error != null) {
                      result.completeExceptionally(error);
                    } else {
                      result.complete(frame);
                    }
                  });
        });
    return result;
  }

  @Override
  public int callsInFlight() {
    return pending.get();
  }

  @Override
  public boolean isOpen() {
    return open;
  }

  @Override
  public SocketAddress remoteAddress() {
    return InetSocketAddress.createUnresolved("in-memory", 0);
  }

  @Override
  public void close() {
    open = false;
    io.shutdownNow();
  }
}
