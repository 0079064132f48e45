package io.thriftnio.core;

import io.thriftnio.core.internal.server.ProcessorInvoker;
import io.thriftnio.core.util.internal.FrameInputTransport;
import io.thriftnio.core.util.internal.Framing;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * A {@link ThriftChannel} without a network, for core tests: each request runs through a {@link
 * ProcessorInvoker} on the calling thread, and the reply's length prefix is stripped, as a real
 * channel's decoder would. Records every request's message header. After {@link #holdReplies()},
 * replies wait for {@link #releaseSwapped()}, which hands the first two held calls each other's
 * reply: what a channel that lost its request/response order would do.
 */
final class MemoryChannel implements ThriftChannel {
  private static final TConfiguration READ_ANY =
      new TConfiguration(Integer.MAX_VALUE, Integer.MAX_VALUE, 64);

  private final ProcessorInvoker invoker;
  private final TProtocolFactory protocol;
  final List<TMessage> sent = new CopyOnWriteArrayList<>();
  private final List<CompletableFuture<ByteBuffer>> heldCalls = new ArrayList<>();
  private final List<ByteBuffer> heldReplies = new ArrayList<>();
  private boolean hold; // guarded by this

  MemoryChannel(TProtocolFactory protocol, int maxFrameSize) {
    this.protocol = protocol;
    this.invoker = ProcessorInvoker.of(new MiniService.Sync(), protocol, protocol, maxFrameSize);
  }

  synchronized void holdReplies() {
    hold = true;
  }

  /** Completes the first two held calls, each with the other's reply. */
  void releaseSwapped() {
    CompletableFuture<ByteBuffer> first;
    CompletableFuture<ByteBuffer> second;
    ByteBuffer firstReply;
    ByteBuffer secondReply;
    synchronized (this) {
      if (heldCalls.size() < 2) {
        throw new IllegalStateException(heldCalls.size() + " calls held (expected: 2)");
      }
      first = heldCalls.get(0);
      second = heldCalls.get(1);
      firstReply = heldReplies.get(0);
      secondReply = heldReplies.get(1);
      hold = false;
    }
    first.complete(secondReply);
    second.complete(firstReply);
  }

  @Override
  public CompletableFuture<ByteBuffer> exchange(ByteBuffer request) {
    return exchange(request, Duration.ofSeconds(30));
  }

  @Override
  public CompletableFuture<ByteBuffer> exchange(ByteBuffer request, Duration timeout) {
    ByteBuffer reply;
    try {
      reply = run(request).join();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    ByteBuffer payload = reply.duplicate();
    payload.position(payload.position() + Framing.HEADER_SIZE);
    synchronized (this) {
      if (hold) {
        CompletableFuture<ByteBuffer> later = new CompletableFuture<>();
        heldCalls.add(later);
        heldReplies.add(payload.slice());
        return later;
      }
    }
    return CompletableFuture.completedFuture(payload.slice());
  }

  @Override
  public CompletableFuture<Void> send(ByteBuffer request) {
    return run(request).thenApply(nothing -> null);
  }

  private CompletableFuture<ByteBuffer> run(ByteBuffer request) {
    try {
      sent.add(protocol.getProtocol(FrameInputTransport.of(READ_ANY, request)).readMessageBegin());
    } catch (TException e) {
      return CompletableFuture.failedFuture(e);
    }
    return invoker.invoke(request);
  }

  @Override
  public int callsInFlight() {
    synchronized (this) {
      return heldCalls.size();
    }
  }

  @Override
  public boolean isOpen() {
    return true;
  }

  @Override
  public SocketAddress remoteAddress() {
    return InetSocketAddress.createUnresolved("memory", 0);
  }

  @Override
  public void close() {}
}
