package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.testkit.ChannelIo;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Three endpoints, one refusing connections: a call whose connect is refused moves to another
 * endpoint while the retry budget lasts, and fails with its connect error once it is spent.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RetryBudgetTest {

  /** One pool of each kind, seen the same way. */
  enum Kind {
    SYNC,
    ASYNC,
    CHANNEL
  }

  interface Pool extends AutoCloseable {
    long fired() throws Exception;

    PoolStats stats();

    @Override
    void close();
  }

  static Pool pool(Kind kind, PoolConfig config, InetSocketAddress... endpoints) {
    switch (kind) {
      case SYNC:
        {
          ThriftClientPool<BenchService.Client> p =
              PoolSettings.with(
                      ThriftClientPool.builder(BenchService.Client::new).endpoints(endpoints),
                      config)
                  .build();
          return new Pool() {
            @Override
            public long fired() throws Exception {
              return p.call(c -> c.fired());
            }

            @Override
            public PoolStats stats() {
              return p.stats();
            }

            @Override
            public void close() {
              p.close();
            }
          };
        }
      case ASYNC:
        {
          ThriftAsyncClientPool<BenchService.AsyncClient> p =
              PoolSettings.with(
                      ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                          .endpoints(endpoints),
                      config)
                  .build();
          return new Pool() {
            @Override
            public long fired() throws Exception {
              return unwrap(() -> p.<Long>call((c, cb) -> c.fired(cb)).get(10, TimeUnit.SECONDS));
            }

            @Override
            public PoolStats stats() {
              return p.stats();
            }

            @Override
            public void close() {
              p.close();
            }
          };
        }
      default:
        {
          ThriftChannelPool<BenchService.Client> p =
              PoolSettings.with(
                      ThriftChannelPool.builder(BenchService.Client::new)
                          .io(ChannelIo.of(SocketThriftChannel::connect))
                          .endpoints(endpoints),
                      config)
                  .build();
          return new Pool() {
            @Override
            public long fired() throws Exception {
              return unwrap(
                  () ->
                      p.call(c -> c.send_fired(), BenchService.Client::recv_fired)
                          .get(10, TimeUnit.SECONDS));
            }

            @Override
            public PoolStats stats() {
              return p.stats();
            }

            @Override
            public void close() {
              p.close();
            }
          };
        }
    }
  }

  interface Get<T> {
    T get() throws Exception;
  }

  static <T> T unwrap(Get<T> get) throws Exception {
    try {
      return get.get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void refusedConnectsAreRetriedElsewhereWithinTheBudget(Kind kind) throws Exception {
    // The refusing endpoint is dialled whenever its 1 ms back-off has run out: about once a
    // millisecond, which is 1% to 3% of calls on connections a pool reuses here (and more on a
    // slower machine). The budget's share is well below that, so its refusals do not depend on
    // how fast calls go.
    double ratio = 0.002;
    PoolConfig config =
        PoolConfig.builder()
            .retryBudget(
                RetryBudgetConfig.builder()
                    .ratio(ratio)
                    .minRetriesPerSecond(0)
                    .window(Duration.ofMinutes(5)) // nothing ages out during the test
                    .build())
            // The refusing endpoint is tried again almost at once: more refusals than budget.
            .endpointHealth(
                EndpointHealthConfig.builder()
                    .backoff(Duration.ofMillis(1))
                    .maxBackoff(Duration.ofMillis(1))
                    .build())
            .build();
    InetSocketAddress refusing = new InetSocketAddress("127.0.0.1", StubPeer.unusedPort());
    try (StubPeer a = StubPeer.start();
        StubPeer b = StubPeer.start();
        Pool pool = pool(kind, config, a.address(), refusing, b.address())) {
      int calls = 0;
      List<Exception> failures = new ArrayList<>();
      // Until the budget has both paid for a retry and refused one (bounded: then the test fails).
      while (calls < 50_000 && (failures.isEmpty() || pool.stats().retries() == 0)) {
        calls++;
        try {
          assertThat(pool.fired()).isZero();
        } catch (TTransportException e) {
          failures.add(e);
        }
      }
      PoolStats stats = pool.stats();
      assertThat(failures).as("calls that found the budget spent (%s)", stats).isNotEmpty();
      // Every refused connect was either retried on another endpoint or refused by the budget.
      assertThat(stats.retries() + stats.retriesRefused()).isEqualTo(stats.connectFailures());
      assertThat(stats.retriesRefused()).isEqualTo(failures.size());
      // Extra attempts never exceed the budget: a share of the calls made.
      assertThat(stats.retries()).isLessThanOrEqualTo((long) (ratio * calls)).isPositive();
      assertThat(failures.get(0))
          .hasMessageContaining("not retried on another endpoint: retry budget exhausted")
          .hasMessageContaining("total=")
          .hasMessageContaining(String.valueOf(refusing.getPort()));
      assertThat(failures.get(0).getCause()).isNotNull();
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void everyCallSucceedsWhileTheBudgetLasts(Kind kind) throws Exception {
    // The default budget: 10% of calls plus 10 a second over 10 s; the default 1 s back-off.
    InetSocketAddress refusing = new InetSocketAddress("127.0.0.1", StubPeer.unusedPort());
    try (StubPeer a = StubPeer.start();
        StubPeer b = StubPeer.start();
        Pool pool = pool(kind, PoolConfig.defaults(), refusing, a.address(), b.address())) {
      for (int i = 0; i < 200; i++) {
        assertThat(pool.fired()).isZero();
      }
      PoolStats stats = pool.stats();
      assertThat(stats.retriesRefused()).isZero();
      assertThat(stats.retries()).isEqualTo(stats.connectFailures()).isPositive();
      assertThat(stats.retries()).isLessThanOrEqualTo(100 + 20);
    }
  }
}
