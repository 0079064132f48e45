package io.thriftnio.pool;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The DNS source against a name whose addresses change while calls run; the test answers for the
 * DNS (no network). The servers listen on one port on 127.0.0.1, 127.0.0.2 and 127.0.0.3, as pods
 * behind a headless service listen on one port on their own addresses.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DnsEndpointSourceTest {
  private static final String NAME = "bench.test.svc";
  private final List<ThriftServer> servers = new ArrayList<>();
  private final AtomicReference<List<InetAddress>> answer = new AtomicReference<>(List.of());
  private final AtomicBoolean failing = new AtomicBoolean();
  private final AtomicInteger lookups = new AtomicInteger();

  private final DnsEndpointSource.Resolver resolver =
      host -> {
        lookups.incrementAndGet();
        assertThat(host).isEqualTo(NAME);
        if (failing.get()) {
          throw new UnknownHostException(host + ": SERVFAIL (from the test)");
        }
        return answer.get();
      };

  @AfterEach
  void stopServers() {
    servers.forEach(ThriftServer::close);
  }

  private static InetAddress loopback(int last) throws UnknownHostException {
    return InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) last});
  }

  /** Three servers on one port, on 127.0.0.1 to .3; returns the port. */
  private int startServers() throws Exception {
    for (int attempt = 0; ; attempt++) {
      servers.forEach(ThriftServer::close);
      servers.clear();
      try {
        int port = 0;
        for (int i = 1; i <= 3; i++) {
          ThriftServer s =
              NettyThriftServer.builder()
                  .processor(new BenchService.Processor<>(new BenchHandler()))
                  .ioStrategy(IoStrategy.WORKER)
                  .ioThreads(1)
                  .bind(new InetSocketAddress(loopback(i), port))
                  .build()
                  .start();
          servers.add(s);
          port = s.localAddress().getPort();
        }
        return port;
      } catch (RuntimeException e) {
        // The port the first server got may be taken on another loopback address: try another.
        if (attempt == 5) {
          throw e;
        }
      }
    }
  }

  private long completed(int i) {
    return servers.get(i - 1).stats().completedCalls();
  }

  private long open(int i) {
    return servers.get(i - 1).stats().openConnections();
  }

  @Test
  void callsFollowTheAddressesAsTheyChangeAndNoneFails() throws Exception {
    int port = startServers();
    answer.set(List.of(loopback(1), loopback(2)));
    DnsEndpointSource source =
        DnsEndpointSource.builder(NAME, port)
            .interval(Duration.ofMillis(20))
            .resolver(resolver)
            .build();
    ExecutorService callers = Executors.newFixedThreadPool(4);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong calls = new AtomicLong();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    try (ThriftClientPool<BenchService.Client> pool =
        ThriftClientPool.builder(BenchService.Client::new).endpointSource(source).build()) {
      assertThat(pool.endpoints())
          .containsExactly(
              new InetSocketAddress(loopback(1), port), new InetSocketAddress(loopback(2), port));
      List<Future<?>> running = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        running.add(
            callers.submit(
                () -> {
                  while (!stop.get()) {
                    try {
                      pool.call(
                          c -> {
                            c.sleep(5);
                            return null;
                          });
                      calls.incrementAndGet();
                    } catch (Exception | AssertionError e) {
                      failures.add(e);
                    }
                  }
                }));
      }
      await("completed(1) > 0 && completed(2) > 0")
          .until(() -> completed(1) > 0 && completed(2) > 0);

      // .1 leaves and .3 joins, while the calls run.
      answer.set(List.of(loopback(3), loopback(2)));
      await("completed(3) > 20")
          .untilAsserted(
              () -> assertThat(completed(3) > 20).as("calls reach the new server").isTrue());
      await("open(1) == 0")
          .untilAsserted(
              () ->
                  assertThat(open(1) == 0)
                      .as("the server that left is drained: %s connections open", open(1))
                      .isTrue());
      long onOne = completed(1);
      assertThat(pool.endpoints())
          .containsExactlyInAnyOrder(
              new InetSocketAddress(loopback(2), port), new InetSocketAddress(loopback(3), port));

      // The DNS fails for a while: the last set stays, calls go on.
      int before = lookups.get();
      failing.set(true);
      await("lookups.get() >= before + 5").until(() -> lookups.get() >= before + 5);
      assertThat(pool.endpoints()).hasSize(2);
      long during = calls.get();
      await("calls.get() > during + 20").until(() -> calls.get() > during + 20);
      failing.set(false);

      stop.set(true);
      for (Future<?> f : running) {
        f.get(30, TimeUnit.SECONDS);
      }
      assertThat(failures).as("failed calls").isEmpty();
      assertThat(completed(1)).as("no call reached the server that left").isEqualTo(onOne);
      assertThat(calls.get()).isPositive();
    } finally {
      stop.set(true);
      callers.shutdownNow();
    }
    await(
            "Thread.getAllStackTraces().keySet().stream() .noneMatch(t -> t.getName().startsWith(\"thrift-nio-dns\"))")
        .untilAsserted(
            () ->
                assertThat(
                        Thread.getAllStackTraces().keySet().stream()
                            .noneMatch(t -> t.getName().startsWith("thrift-nio-dns")))
                    .as("the resolving thread ends when the pool closes its source")
                    .isTrue());
  }

  @Test
  void aNameThatDoesNotResolveYetFailsCallsAtOnceThenServes() throws Exception {
    int port = startServers();
    failing.set(true);
    DnsEndpointSource source =
        DnsEndpointSource.builder(NAME, port)
            .interval(Duration.ofMillis(20))
            .resolver(resolver)
            .build();
    try (ThriftClientPool<BenchService.Client> pool =
        ThriftClientPool.builder(BenchService.Client::new).endpointSource(source).build()) {
      assertThatThrownBy(
              () ->
                  pool.call(
                      c -> {
                        c.sleep(0);
                        return null;
                      }))
          .isInstanceOf(PoolException.class)
          .hasMessageContaining("DNS " + NAME + ":" + port + " every 20ms lists no endpoint");
      answer.set(List.of(loopback(1)));
      failing.set(false);
      await("!pool.endpoints().isEmpty()").until(() -> !pool.endpoints().isEmpty());
      pool.call(
          c -> {
            c.sleep(0);
            return null;
          });
      assertThat(completed(1)).isEqualTo(1);
    }
  }

  @Test
  void aRotatedAnswerIsNoChange() throws Exception {
    answer.set(List.of(loopback(1), loopback(2)));
    List<List<InetSocketAddress>> published = new CopyOnWriteArrayList<>();
    try (DnsEndpointSource source =
        DnsEndpointSource.builder(NAME, 9090)
            .interval(Duration.ofMillis(10))
            .resolver(resolver)
            .build()) {
      source.start(published::add);
      answer.set(List.of(loopback(2), loopback(1)));
      int before = lookups.get();
      await("lookups.get() >= before + 3").until(() -> lookups.get() >= before + 3);
      assertThat(published).hasSize(1);
      assertThat(published.get(0).get(0).toString()).isEqualTo("/127.0.0.1:9090");
      answer.set(List.of(loopback(2)));
      await("published.size() == 2").until(() -> published.size() == 2);
      assertThat(published.get(1)).containsExactly(new InetSocketAddress(loopback(2), 9090));
    }
  }

  @Test
  void builderValidates() {
    assertThatThrownBy(() -> DnsEndpointSource.builder(NAME, 0))
        .hasMessage("port: 0 (expected: 1 to 65535)");
    assertThatThrownBy(() -> DnsEndpointSource.builder(" ", 1))
        .hasMessage("host: \" \" (expected: a host name)");
    assertThatThrownBy(() -> DnsEndpointSource.builder(NAME, 1).interval(Duration.ZERO).build())
        .hasMessage("interval: PT0S (expected: > 0)");
    assertThat(DnsEndpointSource.DEFAULT_INTERVAL).isEqualTo(Duration.ofSeconds(5));
  }
}
