package io.thriftnio.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.internal.NamedThreadFactory;
import io.thriftnio.grizzly.GrizzlyClientIo;
import io.thriftnio.grizzly.GrizzlyThriftServer;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.pool.PoolStats;
import io.thriftnio.pool.ThriftAsyncClientPool;
import io.thriftnio.pool.ThriftChannelPool;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.FaultInjectingHandler;
import io.thriftnio.testkit.RecordingClientInterceptor;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.gen.TestInfo;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.thrift.TApplicationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The {@code futureIface} proxies of {@link ThriftChannelPool} (over the transport's own channels)
 * and {@link ThriftAsyncClientPool} (stock {@code AsyncClient}s) against a Netty and a Grizzly
 * server: every kind of method of the generated {@code FutureIface} completes its future on the
 * pool's executor with the result, {@code null} for void and oneway methods, or exceptionally with
 * the declared exception or the {@code TApplicationException} itself; the pool's interceptors see
 * each call; an interface that does not fit is refused at creation. {@code callVoid} on the channel
 * pool too.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PoolFutureIfaceCrossTransportTest {

  enum Transport {
    NETTY(NettyThriftServer::builder, () -> NettyClientIo.create(1)),
    GRIZZLY(GrizzlyThriftServer::builder, GrizzlyClientIo::create);

    final Supplier<ServerBuilder<?>> server;
    final Supplier<ClientIo> resources;

    Transport(Supplier<ServerBuilder<?>> server, Supplier<ClientIo> resources) {
      this.server = server;
      this.resources = resources;
    }
  }

  private final ExecutorService executor =
      Executors.newSingleThreadExecutor(new NamedThreadFactory("future-test"));

  @AfterEach
  void stopExecutor() {
    executor.shutdownNow();
  }

  private static ThriftServer start(Transport transport) throws Exception {
    return transport
        .server
        .get()
        .processor(new BenchService.Processor<>(new FaultInjectingHandler()))
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
        .build()
        .start();
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void channelPoolFutureIfaceAndCallVoid(Transport transport) throws Exception {
    RecordingClientInterceptor recorder = new RecordingClientInterceptor();
    try (ThriftServer server = start(transport);
        ClientIo resources = transport.resources.get();
        ThriftChannelPool<BenchService.Client> pool =
            ThriftChannelPool.builder(BenchService.Client::new)
                .io(resources)
                .options(ClientOptions.builder().callbackExecutor(executor).build())
                .endpoints(server.localAddress())
                .interceptors(List.of(recorder))
                .build()) {
      BenchService.FutureIface bench = pool.futureIface(BenchService.FutureIface.class);
      everyKindOfMethod(bench, recorder);
      // A declared exception or a TApplicationException is a whole reply: the connection stays.
      assertThat(pool.stats().created()).isEqualTo(1);
      assertThat(pool.stats().invalidated()).isZero();

      assertThat(
              pool.callVoid(c -> c.send_sleep(1), BenchService.Client::recv_sleep)
                  .get(10, TimeUnit.SECONDS))
          .isNull();
      assertThat(failureOf(pool.callVoid(c -> c.send_fail(5, "x"), BenchService.Client::recv_fail)))
          .isInstanceOf(BenchError.class);
      int calls = recorder.ended().size();
      assertThat(recorder.ended().subList(calls - 2, calls))
          .extracting(e -> e.context().methodName())
          .containsExactly("sleep", "fail");

      assertRefusesIface(() -> pool.futureIface(BenchService.Iface.class));
    }
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void asyncClientPoolFutureIface(Transport transport) throws Exception {
    RecordingClientInterceptor recorder = new RecordingClientInterceptor();
    try (ThriftServer server = start(transport);
        ThriftAsyncClientPool<BenchService.AsyncClient> pool =
            ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
                .endpoints(server.localAddress())
                .options(ClientOptions.builder().callbackExecutor(executor).build())
                .interceptors(List.of(recorder))
                .build()) {
      BenchService.FutureIface bench = pool.futureIface(BenchService.FutureIface.class);
      everyKindOfMethod(bench, recorder);
      // A declared exception and an application exception are whole replies: the connection
      // stays, under a fresh stock client.
      PoolStats stats = pool.stats();
      assertThat(stats.invalidated()).isZero();
      assertRefusesIface(() -> pool.futureIface(BenchService.Iface.class));
    }
  }

  /**
   * Eight calls, one of each kind, through {@code bench}, in order, each awaited: a struct result,
   * a list, a primitive, void, oneway, a declared exception, an application exception, binary.
   */
  private void everyKindOfMethod(BenchService.FutureIface bench, RecordingClientInterceptor rec)
      throws Exception {
    AtomicReference<String> completedOn = new AtomicReference<>();
    // The executor held until the stage below is attached: it then runs where the future
    // completes, not on this thread, however fast the reply.
    CountDownLatch held = new CountDownLatch(1);
    executor.execute(
        () -> {
          try {
            held.await(10, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // shut down: the test is over
          }
        });
    CompletableFuture<String> symbol =
        bench
            .get_last_sale("ACME")
            .thenApply(
                r -> {
                  completedOn.set(Thread.currentThread().getName());
                  return r.getSymbol();
                });
    held.countDown();
    assertThat(symbol.get(10, TimeUnit.SECONDS)).isEqualTo("ACME");
    assertThat(completedOn.get()).as("completed on the pool's executor").startsWith("future-test");

    CompletableFuture<List<TestInfo>> rows = bench.db_work(5);
    assertThat(rows.get(10, TimeUnit.SECONDS)).hasSize(5).contains(BenchHandler.row(4));
    CompletableFuture<Long> before = bench.fired();
    long fired = before.get(10, TimeUnit.SECONDS);
    CompletableFuture<Void> slept = bench.sleep(1);
    assertThat(slept.get(10, TimeUnit.SECONDS)).isNull();
    CompletableFuture<Void> sent = bench.fire(ByteBuffer.allocate(4));
    assertThat(sent.get(10, TimeUnit.SECONDS)).isNull();

    assertThat(failureOf(bench.fail(7, "declared")))
        .isInstanceOfSatisfying(BenchError.class, e -> assertThat(e.getCode()).isEqualTo(7));
    assertThat(failureOf(bench.fail(FaultInjectingHandler.THROW_RUNTIME_EXCEPTION, "boom")))
        .isInstanceOfSatisfying(
            TApplicationException.class,
            e -> assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR));

    ByteBuffer payload = ByteBuffer.wrap("after".getBytes(StandardCharsets.UTF_8));
    assertThat(bench.echo(payload.duplicate()).get(10, TimeUnit.SECONDS)).isEqualTo(payload);

    assertThat(rec.ended())
        .extracting(e -> e.context().methodName())
        .containsExactly(
            "get_last_sale", "db_work", "fired", "sleep", "fire", "fail", "fail", "echo");
    assertThat(rec.outcomes())
        .containsExactly(
            CallOutcome.SUCCESS,
            CallOutcome.SUCCESS,
            CallOutcome.SUCCESS,
            CallOutcome.SUCCESS,
            CallOutcome.ONEWAY,
            CallOutcome.DECLARED_EXCEPTION,
            CallOutcome.APPLICATION_EXCEPTION,
            CallOutcome.SUCCESS);

    // The oneway call reaches the handler, in its own time (a worker thread, maybe another
    // connection): fired() counts it within a deadline.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    long now = bench.fired().get(10, TimeUnit.SECONDS);
    while (now == fired && System.nanoTime() < deadline) {
      now = bench.fired().get(10, TimeUnit.SECONDS);
    }
    assertThat(now).isEqualTo(fired + 1);
  }

  private static void assertRefusesIface(org.assertj.core.api.ThrowableAssert.ThrowingCallable c) {
    assertThatThrownBy(c)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("futureIface: io.thriftnio.testkit.gen.BenchService.Iface.")
        .hasMessageContaining("(expected: java.util.concurrent.CompletableFuture<");
  }

  private static Throwable failureOf(CompletableFuture<?> future) {
    ExecutionException e =
        org.assertj.core.api.Assertions.catchThrowableOfType(
            ExecutionException.class, () -> future.get(10, TimeUnit.SECONDS));
    assertThat(e).as("the future failed").isNotNull();
    return e.getCause();
  }
}
