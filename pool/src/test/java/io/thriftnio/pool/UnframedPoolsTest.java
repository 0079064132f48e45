package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every pool that takes a transport or channel factory works unchanged with unframed connections:
 * the server accepts {@link WireKind#UNFRAMED} only, so a framed connection would be refused.
 * ({@link ThriftAsyncClientPool} pools libthrift's own {@code TAsyncClient}s, which frame by
 * design, and has no unframed form.)
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class UnframedPoolsTest {

  private static final ClientOptions UNFRAMED =
      ClientOptions.builder().wireKind(WireKind.UNFRAMED).build();

  private final BenchHandler handler = new BenchHandler();
  private ThriftServer server;
  private NettyClientIo resources;

  @BeforeEach
  void start() throws Exception {
    server =
        NettyThriftServer.builder()
            .processor(new BenchService.Processor<>(handler))
            .ioStrategy(IoStrategy.WORKER)
            .ioThreads(1)
            .wireKinds(WireKind.UNFRAMED)
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build()
            .start();
    resources = NettyClientIo.create(1);
  }

  @AfterEach
  void stop() {
    resources.close();
    server.close();
  }

  private ThriftClientPool<BenchService.Client> syncPool(ClientTransportFactory transports) {
    return ThriftClientPool.builder(BenchService.Client::new)
        .endpoints(server.localAddress())
        .transportFactory(transports)
        .maxPerEndpoint(4)
        .maxIdlePerEndpoint(4)
        .build();
  }

  @Test
  void theSyncPoolCallsAnUnframedServerThroughThisLibrarysTransport() throws Exception {
    try (ThriftClientPool<BenchService.Client> pool =
        syncPool(ClientTransportFactory.of(resources, UNFRAMED))) {
      callFromFourThreads(pool.iface(BenchService.Iface.class));
      assertThat(pool.stats().created()).isBetween(1L, 4L);
      assertThat(pool.stats().invalidated()).isZero();
    }
  }

  @Test
  void theSyncPoolCallsAnUnframedServerThroughAStockSocket() throws Exception {
    ClientTransportFactory sockets =
        ClientTransportFactory.stock(
            ClientOptions.builder()
                .connectTimeout(Duration.ofSeconds(5))
                .callTimeout(Duration.ofSeconds(10))
                .wireKind(WireKind.UNFRAMED)
                .build());
    assertThat(sockets.toString())
        .isEqualTo("stock(UNFRAMED, connectTimeout=5000ms, callTimeout=10000ms)");
    try (ThriftClientPool<BenchService.Client> pool = syncPool(sockets)) {
      callFromFourThreads(pool.iface(BenchService.Iface.class));
      assertThat(pool.stats().created()).isBetween(1L, 4L);
    }
  }

  @Test
  void theChannelPoolPipelinesCallsToAnUnframedServer() throws Exception {
    try (ThriftChannelPool<BenchService.Client> pool =
        ThriftChannelPool.builder(BenchService.Client::new)
            .io(resources)
            .options(UNFRAMED)
            .endpoints(server.localAddress())
            .maxCallsInFlightPerConnection(16)
            .build()) {
      List<CompletableFuture<ByteBuffer>> echoes = new ArrayList<>();
      for (int i = 0; i < 64; i++) {
        ByteBuffer payload = Payloads.of(Payloads.MEDIUM, i);
        echoes.add(pool.call(c -> c.send_echo(payload), BenchService.Client::recv_echo));
      }
      for (int i = 0; i < echoes.size(); i++) {
        assertThat(Payloads.check(echoes.get(i).get(10, TimeUnit.SECONDS), Payloads.MEDIUM, i))
            .as("echo %d intact and in its own future", i)
            .isTrue();
      }
      pool.callOneway(c -> c.send_fire(Payloads.of(Payloads.SMALL, 1))).get(10, TimeUnit.SECONDS);
      CompletableFuture<Object> failed =
          pool.call(
              c -> c.send_fail(3, "three"),
              c -> {
                c.recv_fail();
                return null;
              });
      assertThat(failed)
          .failsWithin(10, TimeUnit.SECONDS)
          .withThrowableOfType(ExecutionException.class)
          .withCauseInstanceOf(BenchError.class);
      awaitFired(1);
      assertThat(pool.stats().invalidated()).isZero();
    }
  }

  /** Every method but sleep, from four threads at once, each checking its own results. */
  private void callFromFourThreads(BenchService.Iface client) throws Exception {
    ExecutorService callers = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int seed = t;
        done.add(
            callers.submit(
                () -> {
                  for (int i = 0; i < 25; i++) {
                    ByteBuffer reply = client.echo(Payloads.of(Payloads.MEDIUM, seed * 100 + i));
                    assertThat(Payloads.check(reply, Payloads.MEDIUM, seed * 100 + i)).isTrue();
                    assertThat(client.get_last_sale("S" + seed).getSymbol()).isEqualTo("S" + seed);
                    assertThat(client.db_work(3)).hasSize(3);
                  }
                  assertThatThrownBy(() -> client.fail(seed, "declared"))
                      .isInstanceOfSatisfying(
                          BenchError.class, e -> assertThat(e.getCode()).isEqualTo(seed));
                  client.fire(Payloads.of(Payloads.SMALL, seed));
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get(20, TimeUnit.SECONDS);
      }
    } finally {
      callers.shutdownNow();
    }
    awaitFired(4);
  }

  /** Oneway calls may reach the handler after a later call on another pooled connection. */
  private void awaitFired(long count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (handler.fired() < count && System.nanoTime() < deadline) {
      Thread.sleep(5); // nothing to wait on but the handler's counter
    }
    assertThat(handler.fired()).isEqualTo(count);
  }
}
