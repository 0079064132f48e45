package io.thriftnio.spring.boot;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.NotRun;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.pool.Balancer;
import io.thriftnio.pool.PoolStats;
import io.thriftnio.pool.ThriftChannelPool;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Issue 38, item 5, with the starter: a Boot app serving a service, and a plain server beside it,
 * behind one {@link ThriftChannelPool} under a load of calls of a method nobody declared
 * idempotent; the app's context is closed (which runs the server's drain) under that load. Every
 * call must succeed: those the draining server does not run are answered "not run" ({@link NotRun})
 * and the pool sends them to the other server.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GracefulStopUnderLoadTest {

  private static final int CALLERS = 32;
  private static final int CALL_MILLIS = 2;

  @Configuration(proxyBeanMethods = false)
  static class Service {
    @Bean
    @ThriftService
    BenchService.Iface bench() {
      return new BenchHandler();
    }
  }

  @Test
  void closingTheContextUnderLoadFailsNoCall() throws Exception {
    AtomicLong ok = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    AtomicLong failedNotRun = new AtomicLong();
    Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
    AtomicBoolean stop = new AtomicBoolean();
    try (NettyClientIo io = NettyClientIo.create(2);
        ThriftServer staying =
            NettyThriftServer.builder()
                .processor(new BenchService.Processor<>(new BenchHandler()))
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .build()
                .start()) {
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(ThriftAutoConfiguration.class))
          .withUserConfiguration(Service.class)
          .withPropertyValues("thrift.server.port=0", "thrift.server.address=127.0.0.1")
          .run(
              context -> {
                InetSocketAddress app =
                    context.getBean(ThriftServerLifecycle.class).localAddress().orElseThrow();
                try (ThriftChannelPool<BenchService.Client> pool =
                    ThriftChannelPool.builder(BenchService.Client::new)
                        .io(io)
                        .endpoints(app, staying.localAddress())
                        .balancer(Balancer.ROUND_ROBIN)
                        .callDeadline(Duration.ofSeconds(10))
                        .build()) {
                  BenchService.FutureIface bench = pool.futureIface(BenchService.FutureIface.class);
                  CountDownLatch done = new CountDownLatch(CALLERS);
                  for (int i = 0; i < CALLERS; i++) {
                    Thread t =
                        new Thread(
                            () -> {
                              try {
                                while (!stop.get()) {
                                  try {
                                    sleep(bench).get(30, TimeUnit.SECONDS);
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
                            "boot-drain-caller-" + i);
                    t.setDaemon(true);
                    t.start();
                  }
                  await("ok.get() >= 2_000")
                      .atMost(Duration.ofSeconds(60))
                      .until(() -> ok.get() >= 2_000);
                  context.close(); // the starter's lifecycle drains the app's server
                  long afterClose = ok.get();
                  await("ok.get() >= afterClose + 2_000")
                      .atMost(Duration.ofSeconds(60))
                      .until(() -> ok.get() >= afterClose + 2_000);
                  stop.set(true);
                  assertThat(done.await(60, TimeUnit.SECONDS)).as("callers ended").isTrue();
                  PoolStats stats = pool.stats();
                  System.out.printf(
                      "drain table (issue 38): spring-boot CHANNEL | ok %d | failed %d | sent"
                          + " elsewhere %d   (%s)%n",
                      ok.get(), failed.get(), stats.notRun() - failedNotRun.get(), stats);
                  failures.forEach(f -> System.out.println("  failure: " + f));
                } finally {
                  stop.set(true);
                }
              });
    }
    assertThat(failed.get())
        .as("calls failed while the Boot app stopped gracefully: %s", failures)
        .isZero();
  }

  private static CompletableFuture<Void> sleep(BenchService.FutureIface bench) {
    try {
      return bench.sleep(CALL_MILLIS);
    } catch (Exception e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
