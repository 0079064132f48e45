package io.thriftnio.it.drain;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ClientIo;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.NotRun;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.grizzly.GrizzlyClientIo;
import io.thriftnio.grizzly.GrizzlyThriftServer;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.pool.Balancer;
import io.thriftnio.pool.PoolBuilder;
import io.thriftnio.pool.PoolStats;
import io.thriftnio.pool.ThriftAsyncClientPool;
import io.thriftnio.pool.ThriftChannelPool;
import io.thriftnio.pool.ThriftClientPool;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 38, item 5: two real servers (WORKER strategy) behind one pool of each kind, a load of
 * concurrent callers calling a method nobody declared idempotent ({@code sleep}), and one server
 * closed gracefully under that load. Every call must succeed: a call the closing server did not run
 * is answered "not run" ({@link NotRun}) and the pool sends it to the other server. Prints one row
 * per case: calls ok / failed / sent elsewhere ({@link PoolStats#notRun()}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DrainUnderLoadTest {

  enum Transport {
    NETTY(NettyThriftServer::builder),
    GRIZZLY(GrizzlyThriftServer::builder);

    final Supplier<ServerBuilder<?>> server;

    Transport(Supplier<ServerBuilder<?>> server) {
      this.server = server;
    }
  }

  enum Kind {
    SYNC,
    ASYNC,
    CHANNEL
  }

  /** Concurrent callers: each makes one call at a time, the next as the last one ends. */
  private static final int CALLERS = 32;

  /** The handler's time per call: calls are in flight on the server as it closes. */
  private static final int CALL_MILLIS = 2;

  private static final NettyClientIo NETTY_IO = NettyClientIo.create(2);
  private static final Map<String, String> TABLE = new ConcurrentHashMap<>();

  @AfterAll
  static void printTable() {
    NETTY_IO.close();
    StringBuilder sb =
        new StringBuilder("drain table (issue 38): case | ok | failed | sent elsewhere\n");
    TABLE.keySet().stream().sorted().forEach(k -> sb.append(TABLE.get(k)).append('\n'));
    System.out.println(sb);
  }

  static List<Arguments> cases() {
    List<Arguments> all = new ArrayList<>();
    for (Transport t : Transport.values()) {
      for (Kind k : Kind.values()) {
        all.add(Arguments.of(t, k));
      }
    }
    return all;
  }

  private static ThriftServer start(Transport transport) throws Exception {
    return transport
        .server
        .get()
        .processor(new BenchService.Processor<>(new BenchHandler()))
        .ioStrategy(IoStrategy.WORKER)
        .drainTimeout(Duration.ofSeconds(5))
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
        .build()
        .start();
  }

  /** One call of the load, however the pool kind makes it. */
  interface Caller extends AutoCloseable {
    CompletableFuture<Void> call();

    PoolStats stats();

    @Override
    void close();
  }

  private static <B extends PoolBuilder<?, B>> B config(B builder) {
    return builder
        .balancer(Balancer.ROUND_ROBIN)
        .maxPerEndpoint(CALLERS)
        .maxIdlePerEndpoint(Integer.getInteger("drain.maxIdle", 8)) // 8: the pools' default
        .callDeadline(Duration.ofSeconds(10));
  }

  private static Caller caller(Kind kind, ClientIo io, InetSocketAddress a, InetSocketAddress b) {
    switch (kind) {
      case SYNC:
        {
          ThriftClientPool<BenchService.Client> pool =
              config(ThriftClientPool.builder(BenchService.Client::new).io(io).endpoints(a, b))
                  .build();
          BenchService.Iface bench = pool.iface(BenchService.Iface.class);
          return new Caller() {
            @Override
            public CompletableFuture<Void> call() {
              try {
                bench.sleep(CALL_MILLIS);
                return CompletableFuture.completedFuture(null);
              } catch (Exception e) {
                return CompletableFuture.failedFuture(e);
              }
            }

            @Override
            public PoolStats stats() {
              return pool.stats();
            }

            @Override
            public void close() {
              pool.close();
            }
          };
        }
      case ASYNC:
        {
          ThriftAsyncClientPool<BenchService.AsyncClient> pool =
              config(
                      ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                          .endpoints(a, b))
                  .build();
          BenchService.FutureIface bench = pool.futureIface(BenchService.FutureIface.class);
          return new Caller() {
            @Override
            public CompletableFuture<Void> call() {
              return sleep(bench);
            }

            @Override
            public PoolStats stats() {
              return pool.stats();
            }

            @Override
            public void close() {
              pool.close();
            }
          };
        }
      default:
        {
          ThriftChannelPool<BenchService.Client> pool =
              config(ThriftChannelPool.builder(BenchService.Client::new).io(io).endpoints(a, b))
                  .build();
          BenchService.FutureIface bench = pool.futureIface(BenchService.FutureIface.class);
          return new Caller() {
            @Override
            public CompletableFuture<Void> call() {
              return sleep(bench);
            }

            @Override
            public PoolStats stats() {
              return pool.stats();
            }

            @Override
            public void close() {
              pool.close();
            }
          };
        }
    }
  }

  /** {@code sleep} through a {@code FutureIface}, whose methods declare {@code TException}. */
  private static CompletableFuture<Void> sleep(BenchService.FutureIface bench) {
    try {
      return bench.sleep(CALL_MILLIS);
    } catch (Exception e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private static ClientIo io(Transport transport) throws Exception {
    return transport == Transport.NETTY ? NETTY_IO : GrizzlyClientIo.create();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("cases")
  void oneServerClosedGracefullyUnderLoadFailsNoCall(Transport transport, Kind kind)
      throws Exception {
    String only = System.getProperty("drain.case"); // e.g. "NETTY ASYNC", to run one case
    org.junit.jupiter.api.Assumptions.assumeTrue(
        only == null || only.isEmpty() || only.equals(transport + " " + kind));
    ClientIo io = io(transport);
    AtomicLong ok = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    AtomicLong failedNotRun = new AtomicLong();
    Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
    AtomicBoolean stop = new AtomicBoolean();
    try (ThriftServer leaving = start(transport);
        ThriftServer staying = start(transport);
        Caller pool = caller(kind, io, leaving.localAddress(), staying.localAddress())) {
      CountDownLatch done = new CountDownLatch(CALLERS);
      List<Thread> threads = new ArrayList<>();
      for (int i = 0; i < CALLERS; i++) {
        Thread t =
            new Thread(
                () -> {
                  try {
                    while (!stop.get()) {
                      try {
                        pool.call().get(30, TimeUnit.SECONDS);
                        ok.incrementAndGet();
                      } catch (ExecutionException e) {
                        failed.incrementAndGet();
                        if (NotRun.isNotRun(e.getCause())) {
                          failedNotRun.incrementAndGet();
                        }
                        if (failures.size() < 5) {
                          failures.add(e.getCause());
                        }
                      }
                    }
                  } catch (Exception e) {
                    failures.add(e);
                    failed.incrementAndGet();
                  } finally {
                    done.countDown();
                  }
                },
                "drain-caller-" + i);
        t.setDaemon(true);
        threads.add(t);
        t.start();
      }
      // Load on both servers first, then the graceful close of one while the load goes on.
      await("ok.get() >= 2_000 && leaving.stats() != null")
          .atMost(Duration.ofSeconds(60))
          .until(() -> ok.get() >= 2_000 && leaving.stats() != null);
      long before = ok.get();
      leaving.close();
      long afterClose = ok.get();
      await("ok.get() >= afterClose + 2_000")
          .atMost(Duration.ofSeconds(60))
          .until(() -> ok.get() >= afterClose + 2_000);
      stop.set(true);
      assertThat(done.await(60, TimeUnit.SECONDS)).as("callers ended").isTrue();
      PoolStats stats = pool.stats();
      long sentElsewhere = stats.notRun() - failedNotRun.get();
      String row =
          String.format(
              "%-7s %-7s | ok %6d | failed %3d | sent elsewhere %4d   (ok before close %d, during"
                  + " close %d; %s)",
              transport,
              kind,
              ok.get(),
              failed.get(),
              sentElsewhere,
              before,
              afterClose - before,
              stats);
      TABLE.put(transport + " " + kind, row);
      System.out.println(row);
      failures.forEach(f -> System.out.println("  failure: " + f));
      assertThat(failed.get())
          .as("calls failed while one server closed gracefully: %s", failures)
          .isZero();
    } finally {
      stop.set(true);
      if (io != NETTY_IO) {
        io.close();
      }
    }
  }
}
