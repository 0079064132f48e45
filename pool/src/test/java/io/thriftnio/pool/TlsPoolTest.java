package io.thriftnio.pool;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.ChannelIo;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.tls.TestPki;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The pools over TLS, against a mutual-TLS Netty server. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsPoolTest {

  private static final TestPki PKI = TestPki.shared();
  private static final Duration SECONDS_10 = Duration.ofSeconds(10);

  private ThriftServer server;

  @BeforeEach
  void startServer() throws Exception {
    server =
        NettyThriftServer.builder()
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .ioThreads(1)
            .workerThreads(8)
            .tls(PKI.mutualServerTls().build())
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build()
            .start();
  }

  @AfterEach
  void stopServer() {
    server.close();
  }

  private static ClientTls clientTls() {
    return PKI.clientTls().keyManagerFactory(PKI.clientKeys()).build();
  }

  private ThriftClientPool<BenchService.Client> clientPool(ClientTransportFactory factory) {
    return ThriftClientPool.builder(BenchService.Client::new)
        .endpoints(server.localAddress())
        .transportFactory(factory)
        .maxPerEndpoint(4)
        .maxIdlePerEndpoint(4)
        .build();
  }

  @Test
  void idleConnectionsOfOurSyncTransportLeaveWhenTheServerClosesThem() throws Exception {
    ClientOptions options = ClientOptions.builder().tls(clientTls()).build();
    try (ThriftClientPool<BenchService.Client> pool =
        ThriftClientPool.builder(BenchService.Client::new)
            .endpoints(server.localAddress())
            .transportFactory(ClientTransportFactory.of(NettyClientIo.shared(), options))
            .maxPerEndpoint(4)
            .maxIdlePerEndpoint(4)
            .evictionInterval(Duration.ZERO)
            .build()) {
      // Three connections, then idle.
      try (ThriftClientPool.Lease<BenchService.Client> a = pool.lease();
          ThriftClientPool.Lease<BenchService.Client> b = pool.lease();
          ThriftClientPool.Lease<BenchService.Client> c = pool.lease()) {
        for (ThriftClientPool.Lease<BenchService.Client> lease : List.of(a, b, c)) {
          assertThat(lease.call(client -> client.get_last_sale("A")).getSymbol()).isEqualTo("A");
        }
      }
      PoolStats before = pool.stats();
      assertThat(before.idle()).isEqualTo(3);

      server.close();

      // No borrow, no evictor: only the transports' close events (CloseAware) empty the pool.
      await("pool.stats().total() == 0")
          .atMost(SECONDS_10)
          .untilAsserted(
              () ->
                  assertThat(pool.stats().total() == 0)
                      .as("connections left in the pool: %s", pool.stats())
                      .isTrue());
      PoolStats after = pool.stats();
      assertThat(after.destroyed()).isEqualTo(3);
      assertThat(after.invalidated()).isEqualTo(3);
      assertThat(after.borrowed()).isEqualTo(before.borrowed());
    }
  }

  @Test
  void anIdleTlsConnectionWhoseServerClosedIsDroppedOnBorrowNotUsed() throws Exception {
    try (ThriftClientPool<BenchService.Client> pool =
        clientPool(
            ClientTransportFactory.stock(
                ClientOptions.builder()
                    .connectTimeout(SECONDS_10)
                    .callTimeout(SECONDS_10)
                    .tls(clientTls())
                    .build()))) {
      assertThat(pool.call(c -> c.get_last_sale("A")).getSymbol()).isEqualTo("A");
      assertThat(pool.stats().idle()).isEqualTo(1);
      server.close(); // close_notify, then the end of the stream, on the idle connection
      // The borrow finds the idle connection closed and drops it: the call fails on a new connect
      // (nothing listens: the pool cannot serve), not on the dead connection.
      assertThatThrownBy(() -> pool.call(c -> c.get_last_sale("B")))
          .isInstanceOf(PoolException.class)
          .hasCauseInstanceOf(TTransportException.class);
      assertThat(pool.stats().invalidated()).isEqualTo(1);
      assertThat(pool.stats().connectFailures()).isEqualTo(1);
    }
  }

  @Test
  void clientPoolOverJdkTlsSockets() throws Exception {
    try (ThriftClientPool<BenchService.Client> pool =
        clientPool(
            ClientTransportFactory.stock(
                ClientOptions.builder()
                    .connectTimeout(SECONDS_10)
                    .callTimeout(SECONDS_10)
                    .tls(clientTls())
                    .build()))) {
      ByteBuffer payload = Payloads.of(Payloads.MEDIUM, 4);
      for (int i = 0; i < 5; i++) {
        assertThat(Payloads.check(pool.call(c -> c.echo(payload.duplicate())), Payloads.MEDIUM, 4))
            .isTrue();
      }
      BenchService.Iface iface = pool.iface(BenchService.Iface.class);
      assertThat(iface.get_last_sale("POOL").getSymbol()).isEqualTo("POOL");
      assertThat(pool.stats().created()).isEqualTo(1);
    }
    assertThat(server.stats().tlsFailures()).isZero();
  }

  @Test
  void clientPoolOverNettyTlsTransports() throws Exception {
    ClientTls tls = clientTls();
    try (ThriftClientPool<BenchService.Client> pool =
        clientPool(
            endpoint ->
                NettyClientIo.shared()
                    .openTransport(endpoint, ClientOptions.builder().tls(tls).build()))) {
      java.util.List<io.thriftnio.testkit.gen.TestInfo> rows = pool.call(c -> c.db_work(3));
      assertThat(rows).hasSize(3);
      io.thriftnio.testkit.gen.Nested nested = pool.call(c -> c.get_nested(2));
      assertThat(nested).isEqualTo(BenchHandler.nested(2));
    }
  }

  @Test
  void framedTlsFailsAConnectWithoutTheClientCertificateAndNamesTheEndpoint() {
    ClientTransportFactory noCert =
        ClientTransportFactory.stock(
            ClientOptions.builder()
                .connectTimeout(SECONDS_10)
                .callTimeout(SECONDS_10)
                .tls(PKI.clientTls().build())
                .build());
    ClientTransportFactory wrongName =
        ClientTransportFactory.stock(
            ClientOptions.builder()
                .connectTimeout(SECONDS_10)
                .callTimeout(SECONDS_10)
                .tls(
                    PKI.clientTls()
                        .keyManagerFactory(PKI.clientKeys())
                        .serverName("wrong.example")
                        .build())
                .build());
    String endpoint = server.localAddress().getHostString() + ":" + server.localAddress().getPort();
    assertThatThrownBy(() -> wrongName.open(server.localAddress()))
        .isInstanceOf(TTransportException.class)
        .hasMessageStartingWith("TLS handshake with " + endpoint + " failed: ");
    // TLS 1.3 clients learn of a refused certificate at their first read, not in the handshake.
    assertThatThrownBy(
            () -> {
              try (ThriftClientPool<BenchService.Client> pool = clientPool(noCert)) {
                pool.call(c -> c.get_last_sale("x"));
              }
            })
        .isInstanceOf(Exception.class);
  }

  @Test
  void channelPoolOverNettyTlsChannels() throws Exception {
    ClientTls tls = clientTls();
    try (ThriftChannelPool<BenchService.Client> pool =
        PoolSettings.with(
                ThriftChannelPool.builder(BenchService.Client::new)
                    .io(
                        ChannelIo.of(
                            endpoint ->
                                NettyClientIo.shared()
                                    .openChannel(
                                        endpoint, ClientOptions.builder().tls(tls).build())))
                    .endpoints(server.localAddress()),
                PoolConfig.defaults())
            .maxCallsInFlightPerConnection(8)
            .build()) {
      ByteBuffer payload = Payloads.of(Payloads.MEDIUM, 6);
      CompletableFuture<ByteBuffer> echoed =
          pool.call(c -> c.send_echo(payload.duplicate()), BenchService.Client::recv_echo);
      assertThat(echoed.get(20, TimeUnit.SECONDS)).isEqualTo(payload);
      CompletableFuture<?>[] many = new CompletableFuture<?>[20];
      for (int i = 0; i < many.length; i++) {
        String symbol = "S" + i;
        many[i] =
            pool.call(c -> c.send_get_last_sale(symbol), BenchService.Client::recv_get_last_sale)
                .thenAccept(r -> assertThat(r.getSymbol()).isEqualTo(symbol));
      }
      CompletableFuture.allOf(many).get(20, TimeUnit.SECONDS);
    }
    assertThat(server.stats().tlsFailures()).isZero();
  }
}
