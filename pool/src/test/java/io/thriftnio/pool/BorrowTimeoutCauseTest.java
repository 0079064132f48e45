package io.thriftnio.pool;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A borrow that times out while an endpoint is down says why the pool could not serve: the {@link
 * PoolTimeoutException} is caused by the last endpoint failure and names it, here a refused connect
 * of the second endpoint while the first one's only connection is busy.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BorrowTimeoutCauseTest {

  @Test
  void syncPool() throws Exception {
    InetSocketAddress dead = new InetSocketAddress("127.0.0.1", StubPeer.unusedPort());
    try (StubPeer peer = StubPeer.start();
        ThriftClientPool<BenchService.Client> pool =
            ThriftClientPool.builder(BenchService.Client::new)
                .endpoints(peer.address(), dead)
                .options(
                    ClientOptions.builder()
                        .connectTimeout(Duration.ofSeconds(5))
                        .callTimeout(Duration.ofSeconds(10))
                        .build())
                .maxPerEndpoint(1)
                .maxIdlePerEndpoint(1)
                .borrowTimeout(Duration.ofMillis(300))
                .build()) {
      CountDownLatch gate = new CountDownLatch(1);
      peer.replyGate = gate; // the live endpoint's one connection stays busy
      Thread busy =
          new Thread(
              () -> {
                try {
                  pool.call(c -> c.fired());
                } catch (Exception e) {
                  // the test's outcome is the second call's
                }
              });
      busy.start();
      try {
        await("pool.stats().active() == 1").until(() -> pool.stats().active() == 1);
        Throwable failure = null;
        try {
          pool.call(c -> c.fired());
        } catch (Exception e) {
          failure = e;
        }
        String refused = "cannot connect to " + dead + ": Connection refused";
        assertThat(failure)
            .isInstanceOf(PoolTimeoutException.class)
            .hasMessageContaining("request timed out after")
            .hasMessageContaining(refused)
            .cause()
            .isInstanceOf(TTransportException.class)
            .hasMessage(refused);
      } finally {
        gate.countDown();
        busy.join(10_000);
      }
    }
  }

  @Test
  void asyncPool() throws Exception {
    InetSocketAddress dead = new InetSocketAddress("127.0.0.1", StubPeer.unusedPort());
    try (StubPeer peer = StubPeer.start();
        ThriftAsyncClientPool<BenchService.AsyncClient> pool =
            ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                .endpoints(peer.address(), dead)
                .options(
                    ClientOptions.builder()
                        .connectTimeout(Duration.ofSeconds(5))
                        .callTimeout(Duration.ofSeconds(10))
                        .build())
                .maxPerEndpoint(1)
                .maxIdlePerEndpoint(1)
                .borrowTimeout(Duration.ofMillis(300))
                .build()) {
      CountDownLatch gate = new CountDownLatch(1);
      peer.replyGate = gate; // the live endpoint's one connection stays busy
      try {
        CompletableFuture<Long> busy = pool.call((c, cb) -> c.fired(cb));
        await("pool.stats().active() == 1").until(() -> pool.stats().active() == 1);
        CompletableFuture<Long> second = pool.call((c, cb) -> c.fired(cb));
        Throwable failure = second.handle((ok, t) -> t).get(10, TimeUnit.SECONDS);
        String refused = "cannot connect to " + dead + ": Connection refused";
        assertThat(failure)
            .isInstanceOf(PoolTimeoutException.class)
            .hasMessageContaining("request timed out after")
            .hasMessageContaining(refused)
            .cause()
            .isInstanceOf(TTransportException.class)
            .hasMessage(refused);
        gate.countDown();
        busy.handle((ok, t) -> t).get(10, TimeUnit.SECONDS);
      } finally {
        gate.countDown();
      }
    }
  }
}
