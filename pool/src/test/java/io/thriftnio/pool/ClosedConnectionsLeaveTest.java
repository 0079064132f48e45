package io.thriftnio.pool;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.testkit.gen.BenchService;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A connection the peer closes leaves the channel pool when it closes, not at the next borrow. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ClosedConnectionsLeaveTest {

  @Test
  void idleConnectionsThePeerClosesLeaveBeforeAnyBorrow() throws Exception {
    try (StubPeer peer = StubPeer.start();
        NettyClientIo resources = NettyClientIo.create(1);
        ThriftChannelPool<BenchService.Client> pool =
            ThriftChannelPool.builder(BenchService.Client::new)
                .io(resources)
                .options(ClientOptions.defaults())
                .endpoints(peer.address())
                .evictionInterval(Duration.ZERO)
                .maxCallsInFlightPerConnection(1)
                .build()) {
      // Three connections, then idle.
      var calls =
          java.util.List.of(
              pool.call(c -> c.send_sleep(200), ClosedConnectionsLeaveTest::sleep),
              pool.call(c -> c.send_sleep(200), ClosedConnectionsLeaveTest::sleep),
              pool.call(c -> c.send_sleep(200), ClosedConnectionsLeaveTest::sleep));
      for (var call : calls) {
        call.get(10, TimeUnit.SECONDS);
      }
      PoolStats before = pool.stats();
      assertThat(before.total()).isEqualTo(3);
      assertThat(before.idle()).isEqualTo(3);

      peer.dropConnections();

      // No borrow, no evictor: only the channels' close events can empty the pool.
      await("pool.stats().total() == 0")
          .untilAsserted(
              () ->
                  assertThat(pool.stats().total() == 0)
                      .as("connections left in the pool: %s", pool.stats())
                      .isTrue());
      PoolStats after = pool.stats();
      assertThat(after.destroyed()).isEqualTo(3);
      assertThat(after.invalidated()).isEqualTo(3);
      assertThat(after.borrowed()).isEqualTo(before.borrowed());

      // The next call opens a fresh connection and succeeds.
      assertThat(
              pool.call(c -> c.send_fired(), BenchService.Client::recv_fired)
                  .get(10, TimeUnit.SECONDS))
          .isNotNull();
      assertThat(pool.stats().total()).isEqualTo(1);
    }
  }

  private static Void sleep(BenchService.Client c) throws org.apache.thrift.TException {
    c.recv_sleep();
    return null;
  }
}
