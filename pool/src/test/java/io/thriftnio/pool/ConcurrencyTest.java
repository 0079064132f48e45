package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.ChannelIo;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchService;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** 1000 concurrent callers on a pool of at most 64 connections per endpoint. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ConcurrencyTest {
  private static final int CALLERS = 1000;
  private static final int LIMIT = 64;

  /** Counts live connections through the metrics interface and keeps the highest count. */
  static final class LiveConnections implements PoolMetrics {
    final AtomicInteger live = new AtomicInteger();
    final AtomicInteger max = new AtomicInteger();
    final LongAdder borrowed = new LongAdder();

    @Override
    public void created(InetSocketAddress endpoint) {
      max.accumulateAndGet(live.incrementAndGet(), Math::max);
    }

    @Override
    public void destroyed(InetSocketAddress endpoint) {
      live.decrementAndGet();
    }

    @Override
    public void borrowed(InetSocketAddress endpoint, Duration wait) {
      borrowed.increment();
    }
  }

  private static PoolConfig config() {
    return PoolConfig.builder()
        .maxPerEndpoint(LIMIT)
        .maxIdlePerEndpoint(LIMIT)
        .maxTotal(LIMIT)
        .borrowTimeout(Duration.ofSeconds(30))
        .build();
  }

  interface Caller {
    void call(int caller, int i) throws Exception;
  }

  private static Queue<Throwable> runCallers(int callsEach, Caller caller) throws Exception {
    Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
    CountDownLatch start = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(CALLERS);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < CALLERS; t++) {
      int id = t;
      Thread thread =
          new Thread(
              () -> {
                try {
                  start.await();
                  for (int i = 0; i < callsEach; i++) {
                    caller.call(id, i);
                  }
                } catch (Throwable e) {
                  errors.add(e);
                } finally {
                  done.countDown();
                }
              },
              "caller-" + t);
      thread.setDaemon(true);
      thread.start();
      threads.add(thread);
    }
    start.countDown();
    assertThat(done.await(80, TimeUnit.SECONDS)).as("callers finished").isTrue();
    return errors;
  }

  private static boolean isBind(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof BindException) {
        return true;
      }
    }
    return false;
  }

  @Test
  void syncPoolServesAThousandCallersOnSixtyFourConnections() throws Exception {
    CountingTransports transports = new CountingTransports(Duration.ofSeconds(30));
    LiveConnections metrics = new LiveConnections();
    try (StockServer server =
            StockServer.start(
                StockServer.Kind.THREADED_SELECTOR,
                new BenchService.Processor<>(new BenchHandler()));
        ThriftClientPool<BenchService.Client> pool =
            PoolSettings.with(
                    ThriftClientPool.builder(BenchService.Client::new)
                        .endpoints(server.address())
                        .transportFactory(transports),
                    config())
                .metrics(metrics)
                .build()) {
      BenchService.Iface iface = pool.iface(BenchService.Iface.class);
      Queue<Throwable> errors =
          runCallers(
              5,
              (caller, i) -> {
                ByteBuffer payload = Payloads.of(Payloads.SMALL, caller * 31L + i);
                ByteBuffer echoed = iface.echo(payload.duplicate());
                if (!echoed.equals(payload)) {
                  throw new AssertionError("caller " + caller + " got another payload");
                }
              });
      assertThat(errors).as("errors").isEmpty();
      assertThat(errors.stream().anyMatch(ConcurrencyTest::isBind)).isFalse();
      assertThat(transports.maxOpen.get()).isLessThanOrEqualTo(LIMIT).isPositive();
      assertThat(metrics.max.get()).isLessThanOrEqualTo(LIMIT);
      assertThat(metrics.borrowed.sum()).isEqualTo(CALLERS * 5L);
      PoolStats stats = pool.stats();
      assertThat(stats.borrowed()).isEqualTo(CALLERS * 5L);
      assertThat(stats.total()).isEqualTo(transports.open.get()).isEqualTo(metrics.live.get());
      assertThat(stats.active()).isZero();
      assertThat(stats.timeouts()).isZero();
    }
  }

  @Test
  void asyncPoolServesAThousandCallersOnSixtyFourConnections() throws Exception {
    LiveConnections metrics = new LiveConnections();
    try (StockServer server =
            StockServer.start(
                StockServer.Kind.THREADED_SELECTOR,
                new BenchService.Processor<>(new BenchHandler()));
        ThriftAsyncClientPool<BenchService.AsyncClient> pool =
            PoolSettings.with(
                    ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                        .endpoints(server.address()),
                    config())
                .metrics(metrics)
                .selectorThreads(2)
                .build()) {
      Queue<Throwable> errors =
          runCallers(
              3,
              (caller, i) -> {
                ByteBuffer payload = Payloads.of(Payloads.SMALL, caller * 17L + i);
                ByteBuffer echoed =
                    pool.<ByteBuffer>call((c, cb) -> c.echo(payload.duplicate(), cb))
                        .get(60, TimeUnit.SECONDS);
                if (!echoed.equals(payload)) {
                  throw new AssertionError("caller " + caller + " got another payload");
                }
              });
      assertThat(errors).as("errors").isEmpty();
      assertThat(metrics.max.get()).isLessThanOrEqualTo(LIMIT).isPositive();
      PoolStats stats = pool.stats();
      assertThat(stats.borrowed()).isEqualTo(CALLERS * 3L);
      assertThat(stats.total()).isEqualTo(metrics.live.get());
      assertThat(stats.invalidated()).isZero();
    }
  }

  @Test
  void channelPoolServesAThousandCallersOnSixtyFourConnections() throws Exception {
    LiveConnections metrics = new LiveConnections();
    Queue<SocketThriftChannel> channels = new ConcurrentLinkedQueue<>();
    try (StockServer server =
            StockServer.start(
                StockServer.Kind.THREADED_SELECTOR,
                new BenchService.Processor<>(new BenchHandler()));
        ThriftChannelPool<BenchService.Client> pool =
            PoolSettings.with(
                    ThriftChannelPool.builder(BenchService.Client::new)
                        .io(
                            ChannelIo.of(
                                e -> {
                                  SocketThriftChannel c = SocketThriftChannel.connect(e);
                                  channels.add(c);
                                  return c;
                                }))
                        .endpoints(server.address()),
                    config())
                .metrics(metrics)
                .maxCallsInFlightPerConnection(8)
                .build()) {
      Queue<Throwable> errors =
          runCallers(
              3,
              (caller, i) -> {
                ByteBuffer payload = Payloads.of(Payloads.SMALL, caller * 13L + i);
                ByteBuffer echoed =
                    pool.call(c -> c.send_echo(payload.duplicate()), BenchService.Client::recv_echo)
                        .get(60, TimeUnit.SECONDS);
                if (!echoed.equals(payload)) {
                  throw new AssertionError("caller " + caller + " got another payload");
                }
              });
      assertThat(errors).as("errors").isEmpty();
      assertThat(channels).hasSizeLessThanOrEqualTo(LIMIT);
      for (SocketThriftChannel c : channels) {
        assertThat(c.maxPending.get()).isLessThanOrEqualTo(8);
      }
      assertThat(metrics.max.get()).isLessThanOrEqualTo(LIMIT).isPositive();
      assertThat(pool.stats().borrowed()).isEqualTo(CALLERS * 3L);
      assertThat(pool.stats().invalidated()).isZero();
      assertThat(pool.callsInFlight()).isZero();
    }
  }
}
