package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.util.internal.CallTimeoutException;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.testkit.gen.BenchService;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code callTimeout} bounds a sync call's whole reply, not each read: a server that trickles its
 * reply one byte every 200 ms (33 bytes, 6.6 s) fails a call with {@code callTimeout} 1 s in about
 * 1 s, with the {@link CallTimeoutException} of every pool, on stock sockets and on this library's
 * sync transport (the one every {@code ClientIo} opens over plain TCP).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SyncReplyDeadlineTest {
  private static final ClientOptions OPTIONS =
      ClientOptions.builder()
          .connectTimeout(Duration.ofSeconds(5))
          .callTimeout(Duration.ofSeconds(1))
          .build();

  /** callTimeout plus a margin for a busy machine; well short of the 6.6 s the trickle takes. */
  private static final long BOUND_MILLIS = 3000;

  private StubPeer peer;

  @BeforeEach
  void start() throws Exception {
    peer = StubPeer.start();
    peer.mode = StubPeer.Mode.TRICKLE;
  }

  @AfterEach
  void stop() throws Exception {
    peer.close();
  }

  @Test
  void stockSockets() throws Exception {
    try (ThriftClientPool<BenchService.Client> pool =
        ThriftClientPool.builder(BenchService.Client::new)
            .endpoints(peer.address())
            .options(OPTIONS)
            .build()) {
      assertFailsInTime(pool);
    }
  }

  @Test
  void nettySyncTransport() throws Exception {
    try (NettyClientIo io = NettyClientIo.create(1);
        ThriftClientPool<BenchService.Client> pool =
            ThriftClientPool.builder(BenchService.Client::new)
                .endpoints(peer.address())
                .io(io)
                .options(OPTIONS)
                .build()) {
      assertFailsInTime(pool);
    }
  }

  private void assertFailsInTime(ThriftClientPool<BenchService.Client> pool) {
    long start = System.nanoTime();
    Throwable failure = null;
    try {
      pool.call(c -> c.fired());
    } catch (Exception e) {
      failure = e;
    }
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(failure)
        .as("after %d ms", millis)
        .isInstanceOf(CallTimeoutException.class)
        .hasMessageStartingWith(
            "no response to fired from " + peer.address() + " within callTimeout 1000 ms");
    assertThat(millis).isLessThan(BOUND_MILLIS);
  }
}
