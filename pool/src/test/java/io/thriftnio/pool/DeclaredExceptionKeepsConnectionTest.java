package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.testkit.FaultInjectingHandler;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TApplicationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A declared IDL exception, and an application exception, are whole replies: on each of the three
 * pools, 20 calls that each end in one use one connection, which then serves a normal call.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DeclaredExceptionKeepsConnectionTest {
  private static final int CALLS = 20;

  private ThriftServer server;
  private InetSocketAddress endpoint;

  @BeforeEach
  void start() throws Exception {
    server =
        NettyThriftServer.builder()
            .processor(new BenchService.Processor<>(new FaultInjectingHandler()))
            .ioThreads(1)
            .wireKinds(WireKind.FRAMED, WireKind.HEADER)
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build()
            .start();
    endpoint = server.localAddress();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private static void assertOneConnection(String pool, PoolStats stats) {
    System.out.println("declared exceptions, " + pool + ": " + stats);
    assertThat(stats.created()).as(pool + " created: " + stats).isEqualTo(1);
    assertThat(stats.destroyed()).as(pool + " destroyed: " + stats).isZero();
    assertThat(stats.invalidated()).as(pool + " invalidated: " + stats).isZero();
  }

  @Test
  void syncPool() throws Exception {
    try (ThriftClientPool<BenchService.Client> pool =
        ThriftClientPool.builder(BenchService.Client::new).endpoints(endpoint).build()) {
      for (int i = 0; i < CALLS; i++) {
        int code = i;
        assertThatThrownBy(
                () ->
                    pool.call(
                        c -> {
                          c.fail(code, "declared");
                          return null;
                        }))
            .isInstanceOfSatisfying(BenchError.class, e -> assertThat(e.getCode()).isEqualTo(code));
      }
      assertThatThrownBy(
              () ->
                  pool.call(
                      c -> {
                        c.fail(FaultInjectingHandler.THROW_RUNTIME_EXCEPTION, "x");
                        return null;
                      }))
          .isInstanceOf(TApplicationException.class);
      long fired = pool.call(c -> c.fired());
      assertThat(fired).isZero();
      assertOneConnection("ThriftClientPool", pool.stats());
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = WireKind.class,
      names = {"FRAMED", "HEADER"})
  void asyncPool(WireKind wireKind) throws Exception {
    try (ThriftAsyncClientPool<BenchService.AsyncClient> pool =
        ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
            .endpoints(endpoint)
            .options(ClientOptions.builder().wireKind(wireKind).build())
            .build()) {
      for (int i = 0; i < CALLS; i++) {
        int code = i;
        assertThat(failureOf(pool.<Void>call((c, cb) -> c.fail(code, "declared", cb))))
            .isInstanceOfSatisfying(BenchError.class, e -> assertThat(e.getCode()).isEqualTo(code));
      }
      assertThat(
              failureOf(
                  pool.<Void>call(
                      (c, cb) -> c.fail(FaultInjectingHandler.THROW_RUNTIME_EXCEPTION, "x", cb))))
          .isInstanceOf(TApplicationException.class);
      assertThat(pool.<Long>call((c, cb) -> c.fired(cb)).get(10, TimeUnit.SECONDS)).isZero();
      assertOneConnection("ThriftAsyncClientPool " + wireKind, pool.stats());
    }
  }

  @Test
  void channelPool() throws Exception {
    try (NettyClientIo io = NettyClientIo.create(1);
        ThriftChannelPool<BenchService.Client> pool =
            ThriftChannelPool.builder(BenchService.Client::new)
                .io(io)
                .options(ClientOptions.defaults())
                .endpoints(endpoint)
                .build()) {
      for (int i = 0; i < CALLS; i++) {
        int code = i;
        assertThat(
                failureOf(
                    pool.callVoid(
                        c -> c.send_fail(code, "declared"), BenchService.Client::recv_fail)))
            .isInstanceOfSatisfying(BenchError.class, e -> assertThat(e.getCode()).isEqualTo(code));
      }
      assertThat(
              failureOf(
                  pool.callVoid(
                      c -> c.send_fail(FaultInjectingHandler.THROW_RUNTIME_EXCEPTION, "x"),
                      BenchService.Client::recv_fail)))
          .isInstanceOf(TApplicationException.class);
      assertThat(
              pool.call(c -> c.send_fired(), BenchService.Client::recv_fired)
                  .get(10, TimeUnit.SECONDS))
          .isZero();
      assertOneConnection("ThriftChannelPool", pool.stats());
    }
  }

  private static Throwable failureOf(CompletableFuture<?> f) {
    assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
    return f.handle((ok, t) -> t).join();
  }
}
