package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.testkit.gen.BenchService;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ThriftClientPool} refuses a reply frame over its {@code maxFrameSize} in the words of the
 * other pools, on stock sockets too: {@code connection to P failed: frame length 1048576 exceeds
 * maxFrameSize 65536}, a {@code CORRUPTED_DATA} {@link TTransportException} caused by a {@link
 * FrameSizeException}, never libthrift's {@code Frame size (1048576) larger than max length}.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SyncReplyBoundTest {
  private static final int MAX_FRAME_SIZE = 64 * 1024;
  private static final ClientOptions OPTIONS =
      ClientOptions.builder()
          .connectTimeout(Duration.ofSeconds(5))
          .callTimeout(Duration.ofSeconds(5))
          .maxFrameSize(MAX_FRAME_SIZE)
          .build();

  @ParameterizedTest
  @ValueSource(ints = {1 << 20, Integer.MAX_VALUE})
  void stockSockets(int declared) throws Exception {
    try (AsyncReplyBoundTest.DeclaringServer server =
            new AsyncReplyBoundTest.DeclaringServer(declared);
        ThriftClientPool<BenchService.Client> pool =
            ThriftClientPool.builder(BenchService.Client::new)
                .endpoints(server.address())
                .options(OPTIONS)
                .build()) {
      assertRefused(failureOf(pool), server, declared);
    }
  }

  @Test
  void syncTransport() throws Exception {
    try (AsyncReplyBoundTest.DeclaringServer server =
            new AsyncReplyBoundTest.DeclaringServer(1 << 20);
        NettyClientIo io = NettyClientIo.create(1);
        ThriftClientPool<BenchService.Client> pool =
            ThriftClientPool.builder(BenchService.Client::new)
                .endpoints(server.address())
                .io(io)
                .options(OPTIONS)
                .build()) {
      assertRefused(failureOf(pool), server, 1 << 20);
    }
  }

  private static void assertRefused(
      Throwable failure, AsyncReplyBoundTest.DeclaringServer server, int declared) {
    assertThat(failure)
        .isInstanceOf(TTransportException.class)
        .hasCauseInstanceOf(FrameSizeException.class)
        .hasMessageStartingWith(
            "connection to "
                + server.address()
                + " failed: frame length "
                + declared
                + " exceeds maxFrameSize "
                + MAX_FRAME_SIZE);
    assertThat(((TTransportException) failure).getType())
        .isEqualTo(TTransportException.CORRUPTED_DATA);
  }

  private static Throwable failureOf(ThriftClientPool<BenchService.Client> pool) {
    try {
      pool.call(c -> c.fired());
      return null;
    } catch (Exception e) {
      return e;
    }
  }
}
