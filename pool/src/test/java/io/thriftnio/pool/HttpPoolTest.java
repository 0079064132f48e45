package io.thriftnio.pool;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The pools over HTTP: the sync pool through {@code ClientTransportFactory.of(resources, options)}
 * and the channel pool (its {@code call} and its {@code AsyncIface} proxy) with {@code
 * ClientOptions.wireKind(HTTP)}, against a server accepting framed and HTTP peers on one port.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HttpPoolTest {

  private static final ClientOptions HTTP =
      ClientOptions.builder().wireKind(WireKind.HTTP).httpPath("/thrift").build();

  private ThriftServer server;
  private NettyClientIo resources;

  @BeforeEach
  void start() throws Exception {
    server =
        NettyThriftServer.builder()
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .ioThreads(1)
            .workerThreads(8)
            .wireKinds(WireKind.FRAMED, WireKind.HTTP)
            .httpPath("/thrift")
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build()
            .start();
    resources = NettyClientIo.create(2);
  }

  @AfterEach
  void stop() {
    resources.close();
    server.close();
  }

  @Test
  void syncPoolCallsOverHttpFromManyThreads() throws Exception {
    try (ThriftClientPool<BenchService.Client> pool =
        ThriftClientPool.builder(BenchService.Client::new)
            .endpoints(server.localAddress())
            .transportFactory(ClientTransportFactory.of(resources, HTTP))
            .maxPerEndpoint(4)
            .maxIdlePerEndpoint(4)
            .build()) {
      ExecutorService callers = Executors.newFixedThreadPool(8);
      try {
        List<Future<Integer>> done = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
          int thread = t;
          done.add(
              callers.submit(
                  () -> {
                    for (int i = 0; i < 50; i++) {
                      int seed = thread * 1000 + i;
                      ByteBuffer echoed = pool.call(c -> c.echo(Payloads.of(100, seed)));
                      assertThat(Payloads.check(echoed, 100, seed)).isTrue();
                      pool.call(
                          c -> {
                            c.fire(Payloads.of(10, seed));
                            return null;
                          }); // oneway: an empty 200
                    }
                    return 50;
                  }));
        }
        for (Future<Integer> f : done) {
          assertThat(f.get(30, TimeUnit.SECONDS)).isEqualTo(50);
        }
      } finally {
        callers.shutdownNow();
      }
      assertThat(pool.stats().created()).isBetween(1L, 4L);
      assertThat(server.stats().acceptedConnections()).isBetween(1L, 4L);
    }
  }

  @Test
  void channelPoolCarriesManyCallsInFlightOnFewHttpConnections() throws Exception {
    try (ThriftChannelPool<BenchService.Client> pool =
        ThriftChannelPool.builder(BenchService.Client::new)
            .io(resources)
            .options(HTTP)
            .endpoints(server.localAddress())
            .maxPerEndpoint(2)
            .maxIdlePerEndpoint(2)
            .maxCallsInFlightPerConnection(64)
            .build()) {
      List<CompletableFuture<ByteBuffer>> calls = new ArrayList<>();
      List<CompletableFuture<Void>> oneways = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        ByteBuffer payload = Payloads.of(1000 + i, i);
        calls.add(pool.call(c -> c.send_echo(payload), BenchService.Client::recv_echo));
        if (i % 10 == 0) {
          ByteBuffer fired = Payloads.of(10, i);
          oneways.add(pool.callOneway(c -> c.send_fire(fired)));
        }
      }
      for (int i = 0; i < calls.size(); i++) {
        ByteBuffer echoed = calls.get(i).get(30, TimeUnit.SECONDS);
        assertThat(Payloads.check(echoed, 1000 + i, i)).as("call %d", i).isTrue();
      }
      CompletableFuture.allOf(oneways.toArray(new CompletableFuture<?>[0]))
          .get(30, TimeUnit.SECONDS);
      // Every oneway's empty 200 was consumed in order: calls made after them are still right.
      BenchService.AsyncIface async = pool.asyncIface(BenchService.AsyncIface.class);
      CompletableFuture<String> symbol = new CompletableFuture<>();
      async.get_last_sale(
          "HTTP",
          new org.apache.thrift.async.AsyncMethodCallback<>() {
            @Override
            public void onComplete(io.thriftnio.testkit.gen.TradeReport response) {
              symbol.complete(response.getSymbol());
            }

            @Override
            public void onError(Exception e) {
              symbol.completeExceptionally(e);
            }
          });
      assertThat(symbol.get(30, TimeUnit.SECONDS)).isEqualTo("HTTP");
      assertThat(server.stats().acceptedConnections()).isBetween(1L, 2L);
      assertThat(server.stats().completedCalls()).isGreaterThanOrEqualTo(551);
    }
  }
}
