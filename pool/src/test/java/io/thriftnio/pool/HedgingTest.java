package io.thriftnio.pool;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.testkit.ChannelIo;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code ThriftChannelPool.Builder.hedgeAfter}: a slow idempotent call is sent again elsewhere. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HedgingTest {

  private static ThriftChannelPool<BenchService.Client> pool(
      PoolConfig config, InetSocketAddress... endpoints) {
    return PoolSettings.with(
            ThriftChannelPool.builder(BenchService.Client::new)
                .io(ChannelIo.of(SocketThriftChannel::connect))
                .endpoints(endpoints),
            config)
        .idempotent("echo")
        .hedgeAfter(Duration.ofMillis(100))
        .build();
  }

  /** Round robin: the first call goes to the first endpoint, the slow one. */
  private static PoolConfig.Builder config() {
    return PoolConfig.builder().balancer(Balancer.ROUND_ROBIN);
  }

  private static ByteBuffer payload() {
    return ByteBuffer.wrap("hedged".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aSlowIdempotentCallIsAnsweredByTheHedge() throws Exception {
    try (StubPeer slow = StubPeer.start();
        StubPeer fast = StubPeer.start();
        ThriftChannelPool<BenchService.Client> pool =
            pool(config().build(), slow.address(), fast.address())) {
      slow.replyGate = new CountDownLatch(1);
      try {
        CompletableFuture<ByteBuffer> reply =
            pool.call(c -> c.send_echo(payload()), BenchService.Client::recv_echo);
        // The slow endpoint never answers while the gate is shut: only the hedge can.
        assertThat(reply.get(10, TimeUnit.SECONDS)).isEqualTo(payload());
        assertThat(slow.handled).hasValue(1);
        assertThat(fast.handled).hasValue(1);
        assertThat(pool.stats().retries()).as("the hedge, from the budget").isEqualTo(1);
      } finally {
        slow.replyGate.countDown();
      }
    }
  }

  @Test
  void aCallThatIsNotIdempotentIsNeverHedged() throws Exception {
    try (StubPeer slow = StubPeer.start();
        StubPeer fast = StubPeer.start();
        ThriftChannelPool<BenchService.Client> pool =
            pool(config().build(), slow.address(), fast.address())) {
      // One connection to each first (round robin, one call at a time), so that no call below
      // waits in the queue, where the connector, not the balancer, picks its endpoint.
      for (int i = 0; i < 2; i++) {
        assertThat(
                pool.call(c -> c.send_fired(), BenchService.Client::recv_fired)
                    .get(10, TimeUnit.SECONDS))
            .isZero();
      }
      assertThat(fast.handled).hasValue(1);
      CountDownLatch gate = new CountDownLatch(1);
      slow.replyGate = gate;
      try {
        // Round robin: slow, fast, slow.
        CompletableFuture<Long> notIdempotent =
            pool.call(c -> c.send_fired(), BenchService.Client::recv_fired);
        assertThat(
                pool.call(c -> c.send_echo(payload()), BenchService.Client::recv_echo)
                    .get(10, TimeUnit.SECONDS))
            .isEqualTo(payload());
        CompletableFuture<ByteBuffer> idempotent =
            pool.call(c -> c.send_echo(payload()), BenchService.Client::recv_echo);
        // Answered by its hedge: the hedge delay has passed for the first call too (one timer
        // thread, in order), and it sent nothing more.
        assertThat(idempotent.get(10, TimeUnit.SECONDS)).isEqualTo(payload());
        assertThat(fast.handled).as("the second call and the third's hedge").hasValue(3);
        assertThat(notIdempotent).isNotDone();
        assertThat(pool.stats().retries()).isEqualTo(1);
      } finally {
        gate.countDown();
      }
    }
  }

  @Test
  void noHedgeWithTheBudgetSpent() throws Exception {
    PoolConfig noBudget =
        config()
            .retryBudget(RetryBudgetConfig.builder().ratio(0).minRetriesPerSecond(0).build())
            .build();
    try (StubPeer slow = StubPeer.start();
        StubPeer fast = StubPeer.start();
        ThriftChannelPool<BenchService.Client> pool =
            pool(noBudget, slow.address(), fast.address())) {
      CountDownLatch gate = new CountDownLatch(1);
      slow.replyGate = gate;
      CompletableFuture<ByteBuffer> reply =
          pool.call(c -> c.send_echo(payload()), BenchService.Client::recv_echo);
      await("pool.stats().retriesRefused() == 1")
          .untilAsserted(
              () ->
                  assertThat(pool.stats().retriesRefused() == 1)
                      .as("the hedge the budget refused: %s", pool.stats())
                      .isTrue());
      gate.countDown();
      assertThat(reply.get(10, TimeUnit.SECONDS)).isEqualTo(payload());
      assertThat(fast.handled).hasValue(0);
    }
  }
}
