package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.internal.FrameLength;
import io.thriftnio.core.util.internal.FrameOutputTransport;
import io.thriftnio.testkit.gen.BenchService;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.protocol.TProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The shared-connection pool reads message headers in place, whatever the message size. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MultiplexedPoolHeaderTest {

  private static final TConfiguration LARGE =
      new TConfiguration(64 * 1024 * 1024, 64 * 1024 * 1024, 64);

  /** Answers every exchange at once, on the caller's thread, with one prebuilt reply. */
  private static final class AnsweringChannel implements ThriftChannel {
    private final ByteBuffer reply;

    AnsweringChannel(ByteBuffer reply) {
      this.reply = reply;
    }

    @Override
    public CompletableFuture<ByteBuffer> exchange(ByteBuffer request) {
      return CompletableFuture.completedFuture(reply.duplicate());
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
      return true;
    }

    @Override
    public SocketAddress remoteAddress() {
      return InetSocketAddress.createUnresolved("answering", 0);
    }

    @Override
    public void close() {}
  }

  @Test
  void aLargeExchangeIsNotCopiedToReadItsHeaders() throws Exception {
    int size = 16 * 1024 * 1024;
    FrameOutputTransport requestOut = FrameLength.output(LARGE, size + 64);
    TProtocol requestProtocol = new TBinaryProtocol(requestOut);
    new BenchService.Client(requestProtocol, requestProtocol).send_echo(ByteBuffer.allocate(size));
    ByteBuffer request = requestOut.payload();

    FrameOutputTransport replyOut = FrameLength.output(LARGE, size + 64);
    TProtocol replyProtocol = new TBinaryProtocol(replyOut);
    replyProtocol.writeMessageBegin(new TMessage("echo", TMessageType.REPLY, 1));
    replyProtocol.writeBinary(ByteBuffer.allocate(size)); // the rest is never read by the pool
    ByteBuffer reply = replyOut.payload();

    try (MultiplexedPool pool =
        new MultiplexedPool(
            "header-test",
            List.of(new InetSocketAddress("127.0.0.1", 1)),
            PoolConfig.defaults(),
            PoolMetrics.NONE,
            e -> new AnsweringChannel(reply),
            new TBinaryProtocol.Factory(),
            null,
            8)) {
      // Warm up: connect, load classes.
      assertThat(pool.exchange(request.duplicate()).get(10, TimeUnit.SECONDS).remaining())
          .isEqualTo(reply.remaining());

      com.sun.management.ThreadMXBean threads =
          (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
      long before = threads.getCurrentThreadAllocatedBytes();
      // The channel answers inline, so both header reads run on this thread.
      CompletableFuture<ByteBuffer> f = pool.exchange(request.duplicate());
      long allocated = threads.getCurrentThreadAllocatedBytes() - before;

      assertThat(f.get(10, TimeUnit.SECONDS).remaining()).isEqualTo(reply.remaining());
      assertThat(allocated).as("bytes allocated for a %d-byte exchange", size).isLessThan(1 << 20);
    }
  }
}
