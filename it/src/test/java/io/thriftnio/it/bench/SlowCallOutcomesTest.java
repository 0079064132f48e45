package io.thriftnio.it.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.util.internal.CallTimeoutException;
import io.thriftnio.pool.PoolStats;
import io.thriftnio.pool.PoolTimeoutException;
import io.thriftnio.pool.ThriftClientPool;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** How {@code slowcall} sorts its calls: a reply, its own timeout, head-of-line, anything else. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class SlowCallOutcomesTest {

  /** The stats of a pool that never connected: stats are only ever a pool's. */
  private static final PoolStats NO_STATS;

  static {
    try (ThriftClientPool<BenchService.Client> idle =
        ThriftClientPool.builder(BenchService.Client::new)
            .endpoints(new InetSocketAddress("127.0.0.1", 9))
            .build()) {
      NO_STATS = idle.stats();
    }
  }

  @Test
  void sortsEachCallByHowItEnded() {
    SlowCallOutcomes o = new SlowCallOutcomes();
    o.record(null);
    o.record(null);
    o.record(new ExecutionException(new CallTimeoutException("after 300 ms", false)));
    o.record(new ExecutionException(new CallTimeoutException("behind", true)));
    o.record(new CallTimeoutException("behind, unwrapped", true));
    // A connection closed under the call: what one slow call must not do to the others.
    o.record(
        new ExecutionException(
            new TTransportException(TTransportException.NOT_OPEN, "closed with 3 calls pending")));
    // A timeout that is not the channel's own per-call timeout is no CallTimeoutException.
    o.record(new TTransportException(TTransportException.TIMED_OUT, "read timed out"));
    o.record(new PoolTimeoutException(null, Duration.ofSeconds(5), NO_STATS));
    o.wrongReply("echo(300 B)");

    assertThat(o.ok()).isEqualTo(2);
    assertThat(o.timedOut()).isEqualTo(1);
    assertThat(o.timedOutBehind()).isEqualTo(2);
    assertThat(o.failed()).isEqualTo(4);
    assertThat(o.total()).isEqualTo(9);
    assertThat(o.failedByKind())
        .isEqualTo(
            Map.of(
                "transport-not-open", 1L,
                "timeout", 1L,
                "pool-borrow-timeout", 1L,
                "bad-reply", 1L));
    assertThat(o.examples().get("transport-not-open")).contains("closed with 3 calls pending");
    assertThat(o.examples().get("bad-reply")).isEqualTo("wrong reply to echo(300 B)");
  }

  @Test
  void namesTheOutcomeWithoutCountingIt() {
    assertThat(SlowCallOutcomes.outcome(null)).isEqualTo(SlowCallOutcomes.Outcome.OK);
    assertThat(SlowCallOutcomes.outcome(new CallTimeoutException("t", true)))
        .isEqualTo(SlowCallOutcomes.Outcome.TIMED_OUT_BEHIND);
    assertThat(SlowCallOutcomes.outcome(new IllegalStateException("x")))
        .isEqualTo(SlowCallOutcomes.Outcome.FAILED);
  }
}
