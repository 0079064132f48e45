package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.FaultInjectingHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.TApplicationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ThriftClientPoolTest {

  private static ThriftClientPool<BenchService.Client> pool(StockServer server) {
    return ThriftClientPool.builder(BenchService.Client::new)
        .endpoints(server.address())
        .maxPerEndpoint(4)
        .maxIdlePerEndpoint(4)
        .build();
  }

  @ParameterizedTest
  @EnumSource(StockServer.Kind.class)
  void everyBenchMethodThroughCallIfaceAndLease(StockServer.Kind kind) throws Exception {
    try (StockServer server =
            StockServer.start(kind, new BenchService.Processor<>(new BenchHandler()));
        ThriftClientPool<BenchService.Client> pool = pool(server)) {
      ByteBuffer payload = Payloads.of(Payloads.MEDIUM, 7);
      ByteBuffer echoed = pool.call(c -> c.echo(payload.duplicate()));
      assertThat(echoed).isEqualTo(payload);

      BenchService.Iface iface = pool.iface(BenchService.Iface.class);
      assertThat(iface.echo(payload.duplicate())).isEqualTo(payload);
      assertThat(iface.get_last_sale("ACME").getSymbol()).isEqualTo("ACME");
      assertThat(iface.db_work(50)).hasSize(50).element(7).isEqualTo(BenchHandler.row(7));
      assertThat(iface.get_nested(5)).isEqualTo(BenchHandler.nested(5));
      iface.sleep(1);
      pool.call(
          c -> {
            c.sleep(0);
            return null;
          });
      assertThatThrownBy(() -> iface.fail(42, "declared"))
          .isInstanceOfSatisfying(BenchError.class, e -> assertThat(e.getCode()).isEqualTo(42));

      try (ThriftClientPool.Lease<BenchService.Client> lease = pool.lease()) {
        lease.call(
            c -> {
              c.fire(payload.duplicate());
              return null;
            });
        // Oneway has no reply; the next call on the same connection still reads its own.
        assertThat(lease.call(BenchService.Client::fired)).isEqualTo(1L);
        assertThat(lease.endpoint()).isEqualTo(server.address());
      }

      // Sequential calls share one connection; the declared exception did not cost it.
      PoolStats stats = pool.stats();
      assertThat(stats.created()).isEqualTo(1);
      assertThat(stats.destroyed()).isZero();
      assertThat(stats.total()).isEqualTo(1);
      assertThat(stats.idle()).isEqualTo(1);
      assertThat(stats.active()).isZero();
      assertThat(stats.borrowed()).isEqualTo(9);
    }
  }

  @Test
  void applicationExceptionKeepsTheConnection() throws Exception {
    try (StockServer server =
            StockServer.start(
                StockServer.Kind.THREADED_SELECTOR,
                new BenchService.Processor<>(new FaultInjectingHandler()));
        ThriftClientPool<BenchService.Client> pool = pool(server)) {
      BenchService.Iface iface = pool.iface(BenchService.Iface.class);
      assertThatThrownBy(() -> iface.fail(FaultInjectingHandler.THROW_RUNTIME_EXCEPTION, "boom"))
          .isInstanceOfSatisfying(
              TApplicationException.class,
              e -> assertThat(e.getType()).isEqualTo(TApplicationException.INTERNAL_ERROR));
      assertThat(iface.get_last_sale("X").getPrice()).isEqualTo(25.50);
      assertThat(pool.stats().created()).isEqualTo(1);
      assertThat(pool.stats().invalidated()).isZero();
    }
  }

  @Test
  void unexpectedExceptionInTheCallDestroysTheConnection() throws Exception {
    try (StockServer server =
            StockServer.start(
                StockServer.Kind.THREADED_SELECTOR,
                new BenchService.Processor<>(new BenchHandler()));
        ThriftClientPool<BenchService.Client> pool = pool(server)) {
      assertThatThrownBy(
              () ->
                  pool.call(
                      c -> {
                        c.send_echo(ByteBuffer.allocate(8));
                        throw new IllegalStateException("gave up before reading the reply");
                      }))
          .isInstanceOf(IllegalStateException.class);
      // The unread reply must never reach the next caller.
      assertThat(pool.stats().invalidated()).isEqualTo(1);
      assertThat(pool.stats().total()).isZero();
      assertThat(pool.call(c -> c.get_last_sale("Y")).getSymbol()).isEqualTo("Y");
    }
  }

  @Test
  void leaseInvalidateAndSpoil() throws Exception {
    try (StockServer server =
            StockServer.start(
                StockServer.Kind.THREAD_POOL, new BenchService.Processor<>(new BenchHandler()));
        ThriftClientPool<BenchService.Client> pool = pool(server)) {
      try (ThriftClientPool.Lease<BenchService.Client> lease = pool.lease()) {
        lease.client().sleep(0);
        lease.invalidate();
      }
      assertThat(pool.stats().destroyed()).isEqualTo(1);
      ThriftClientPool.Lease<BenchService.Client> lease = pool.lease();
      lease.close();
      lease.close(); // idempotent
      assertThatThrownBy(lease::client).isInstanceOf(IllegalStateException.class);
      assertThat(pool.stats().active()).isZero();
    }
  }

  @Test
  void ifaceRejectsAnInterfaceTheClientDoesNotImplement() throws Exception {
    try (ThriftClientPool<BenchService.Client> pool =
        ThriftClientPool.builder(BenchService.Client::new)
            .endpoints(new java.net.InetSocketAddress("127.0.0.1", 9))
            .build()) {
      assertThatThrownBy(() -> pool.iface(BenchService.AsyncIface.class))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("AsyncIface");
    }
  }

  @Test
  void builderNeedsAnEndpoint() {
    assertThatThrownBy(() -> ThriftClientPool.builder(BenchService.Client::new).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("endpoints: [] (expected: at least one, or an endpointSource)");
  }

  @Test
  void closeIsIdempotentAndLaterBorrowsFail() throws Exception {
    try (StockServer server =
        StockServer.start(
            StockServer.Kind.THREADED_SELECTOR, new BenchService.Processor<>(new BenchHandler()))) {
      ThriftClientPool<BenchService.Client> pool = pool(server);
      pool.call(c -> c.fired());
      pool.close();
      pool.close();
      assertThat(pool.stats().total()).isZero();
      assertThat(pool.stats().destroyed()).isEqualTo(1);
      assertThatThrownBy(() -> pool.call(c -> c.fired()))
          .isInstanceOf(PoolException.class)
          .hasMessageContaining("is closed");
    }
  }

  @Test
  void readTimeoutOfTheStockFactoryIsValidated() {
    assertThatThrownBy(
            () ->
                ClientTransportFactory.stock(
                    ClientOptions.builder()
                        .connectTimeout(Duration.ZERO)
                        .callTimeout(Duration.ofSeconds(1))
                        .build()))
        .hasMessage("connectTimeout: PT0S (expected: > 0)");
  }
}
