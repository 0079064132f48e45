package io.thriftnio.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.pool.Balancer;
import io.thriftnio.pool.PoolStats;
import io.thriftnio.pool.ThriftClientPool;
import io.thriftnio.testkit.AsyncBenchHandler;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchError;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.async.AsyncMethodCallback;
import org.apache.thrift.protocol.TCompactProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The meters read back from a {@link SimpleMeterRegistry} after real calls. */
@Timeout(60)
class MetersTest {

  @Test
  void serverAndPoolMetersCountRealCalls() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (ThriftServer server =
        NettyThriftServer.builder()
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .protocol(new TCompactProtocol.Factory())
            .addInterceptor(ServerMeters.methodTimers(registry, Tags.of("server", "bench")))
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .build()
            .start()) {
      new ServerMeters(server, "bench", Tags.of("zone", "a")).bindTo(registry);
      PoolMeters poolMeters = new PoolMeters(registry, "bench-pool");
      InetSocketAddress address = server.localAddress();
      String endpoint = address.getHostString() + ":" + address.getPort();
      try (ThriftClientPool<BenchService.Client> pool =
          ThriftClientPool.builder(BenchService.Client::new)
              .protocol(new TCompactProtocol.Factory())
              .options(
                  ClientOptions.builder()
                      .connectTimeout(Duration.ofSeconds(5))
                      .callTimeout(Duration.ofSeconds(30))
                      .build())
              .endpoints(address)
              .metrics(poolMeters)
              .build()) {
        poolMeters.bindStats(pool::stats).bindTo(registry);
        BenchService.Iface bench = pool.iface(BenchService.Iface.class);
        for (int i = 0; i < 5; i++) {
          bench.echo(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        }
        try {
          bench.fail(0, "declared"); // a declared exception: a successful call for the server
        } catch (BenchError expected) {
          // the handler's declared exception
        }

        assertThat(registry.get("thrift.server.queue").tags("method", "echo").timer().count())
            .as("queue time per method")
            .isEqualTo(5);
        assertThat(
                registry
                    .get("thrift.pool.borrow")
                    .tags("pool", "bench-pool", "endpoint", endpoint, "outcome", "acquired")
                    .timer()
                    .count())
            .isEqualTo(6);
        assertThat(
                registry
                    .get("thrift.pool.connections.created")
                    .tags("pool", "bench-pool", "endpoint", endpoint)
                    .counter()
                    .count())
            .isEqualTo(1.0);
        assertThat(registry.get("thrift.pool.connections").tags("state", "idle").gauge().value())
            .isEqualTo(1.0);
        assertThat(registry.get("thrift.pool.waiting").gauge().value()).isZero();
      }

      assertThat(
              registry
                  .get("thrift.server.calls")
                  .tags(
                      "server", "bench", "transport", "netty", "zone", "a", "outcome", "completed")
                  .functionCounter()
                  .count())
          .isEqualTo(6.0);
      assertThat(
              registry
                  .get("thrift.server.calls")
                  .tags("outcome", "failed")
                  .functionCounter()
                  .count())
          .isZero();
      assertThat(
              registry
                  .get("thrift.server.requests")
                  .tags("server", "bench", "method", "echo", "outcome", "success")
                  .timer()
                  .count())
          .isEqualTo(5);
      assertThat(
              registry
                  .get("thrift.server.requests")
                  .tags("method", "fail", "outcome", "declared_exception")
                  .timer()
                  .count())
          .isEqualTo(1);
      assertThat(registry.get("thrift.server.connections.accepted").functionCounter().count())
          .isEqualTo(1.0);
      assertThat(registry.get("thrift.server.sasl.failures").functionCounter().count())
          .as("mirrors ServerStats.saslFailures")
          .isEqualTo((double) server.stats().saslFailures());
      assertThat(registry.get("thrift.server.connections").gauge().value())
          .isEqualTo((double) server.stats().openConnections());
    }
  }

  @Test
  void aConnectionClosedForItsAgeIsCountedAsAged() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (ThriftServer server =
        NettyThriftServer.builder()
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .maxConnectionAge(Duration.ofMillis(100))
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .build()
            .start()) {
      new ServerMeters(server, "bench").bindTo(registry);
      try (java.net.Socket idle = new java.net.Socket()) {
        idle.connect(server.localAddress(), 5_000);
        idle.setSoTimeout(10_000);
        assertThat(idle.getInputStream().read()).as("closed by the server").isEqualTo(-1);
      }
      assertThat(registry.get("thrift.server.connections.aged").functionCounter().count())
          .isEqualTo(1.0);
      assertThat(registry.get("thrift.server.connections.timed.out").functionCounter().count())
          .isZero();
    }
  }

  @Test
  void aCallAnsweredByCallTimeoutCountsAsTimedOutAndFailedAndIsTimedAsTimedOut() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    AsyncBenchHandler neverCallsBack =
        new AsyncBenchHandler() {
          @Override
          public void sleep(int millis, AsyncMethodCallback<Void> callback) {}
        };
    try (ThriftServer server =
        NettyThriftServer.builder()
            .asyncProcessor(new BenchService.AsyncProcessor<>(neverCallsBack))
            .protocol(new TCompactProtocol.Factory())
            .handlerTimeout(Duration.ofMillis(200))
            .addInterceptor(ServerMeters.methodTimers(registry, Tags.empty()))
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .build()
            .start()) {
      new ServerMeters(server, "bench").bindTo(registry);
      try (ThriftClientPool<BenchService.Client> pool =
          ThriftClientPool.builder(BenchService.Client::new)
              .protocol(new TCompactProtocol.Factory())
              .options(
                  ClientOptions.builder()
                      .connectTimeout(Duration.ofSeconds(5))
                      .callTimeout(Duration.ofSeconds(30))
                      .build())
              .endpoints(server.localAddress())
              .build()) {
        BenchService.Iface bench = pool.iface(BenchService.Iface.class);
        assertThatThrownBy(() -> bench.sleep(1))
            .isInstanceOf(TApplicationException.class)
            .hasMessage("sleep did not complete within handlerTimeout 200 ms");
      }
      assertThat(
              registry
                  .get("thrift.server.calls")
                  .tags("outcome", "timed_out")
                  .functionCounter()
                  .count())
          .isEqualTo(1.0);
      assertThat(
              registry
                  .get("thrift.server.calls")
                  .tags("outcome", "failed")
                  .functionCounter()
                  .count())
          .isEqualTo(1.0);
      assertThat(
              registry
                  .get("thrift.server.requests")
                  .tags("method", "sleep", "outcome", "timed_out")
                  .timer()
                  .count())
          .isEqualTo(1);
    }
  }

  @Test
  void poolRetriesAndEjectionsAreCountersReadFromTheStats() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    InetSocketAddress refusing;
    try (ServerSocket bound = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      refusing = new InetSocketAddress(bound.getInetAddress(), bound.getLocalPort());
    } // closed: connects to it are refused
    try (ThriftServer server =
        NettyThriftServer.builder()
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .protocol(new TCompactProtocol.Factory())
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .build()
            .start()) {
      PoolMeters poolMeters = new PoolMeters(registry, "retrying");
      try (ThriftClientPool<BenchService.Client> pool =
          ThriftClientPool.builder(BenchService.Client::new)
              .protocol(new TCompactProtocol.Factory())
              .options(
                  ClientOptions.builder()
                      .connectTimeout(Duration.ofSeconds(5))
                      .callTimeout(Duration.ofSeconds(30))
                      .build())
              .endpoints(refusing, server.localAddress())
              .balancer(Balancer.ROUND_ROBIN)
              .build()) {
        poolMeters.bindStats(pool::stats).bindTo(registry);
        BenchService.Iface bench = pool.iface(BenchService.Iface.class);
        for (int i = 0; i < 4; i++) {
          bench.echo(ByteBuffer.wrap(new byte[] {7}));
        }
        PoolStats stats = pool.stats();
        assertThat(stats.retries()).as("%s", stats).isPositive();
        assertThat(
                registry
                    .get("thrift.pool.retries")
                    .tags("pool", "retrying", "outcome", "sent")
                    .functionCounter()
                    .count())
            .isEqualTo((double) stats.retries());
        assertThat(
                registry
                    .get("thrift.pool.retries")
                    .tags("outcome", "refused")
                    .functionCounter()
                    .count())
            .isEqualTo((double) stats.retriesRefused());
        assertThat(registry.get("thrift.pool.ejections").functionCounter().count())
            .isEqualTo((double) stats.ejections());
        assertThat(registry.get("thrift.pool.connections.aged").functionCounter().count())
            .isEqualTo((double) stats.aged());
        assertThat(registry.get("thrift.pool.not.run").functionCounter().count())
            .isEqualTo((double) stats.notRun());
      }
    }
  }
}
