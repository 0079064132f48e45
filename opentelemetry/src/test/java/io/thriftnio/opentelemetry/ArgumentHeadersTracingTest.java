package io.thriftnio.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.junit5.OpenTelemetryExtension;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.pool.ClientTransportFactory;
import io.thriftnio.pool.ThriftChannelPool;
import io.thriftnio.pool.ThriftClientPool;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The trace context in field 8888 of the arguments ({@code ClientOptions.argumentHeaders}) between
 * thrift-nio clients and servers, over framed and unframed connections, which carry no headers:
 * from a sync pool (its options, or those of its transport factory) and a channel pool.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ArgumentHeadersTracingTest {

  @RegisterExtension static final OpenTelemetryExtension otel = OpenTelemetryExtension.create();

  private ThriftTracing tracing;
  private ThriftServer server;
  private NettyClientIo io;

  @BeforeEach
  void start() throws Exception {
    tracing =
        ThriftTracing.builder()
            .openTelemetry(otel.getOpenTelemetry())
            .serviceName("BenchService")
            .build();
    server =
        NettyThriftServer.builder()
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .wireKinds(WireKind.FRAMED, WireKind.UNFRAMED)
            .addInterceptor(tracing.serverInterceptor())
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .build()
            .start();
    io = NettyClientIo.create(1);
  }

  @AfterEach
  void stop() {
    io.close();
    server.close();
  }

  private void call(String pool, ClientOptions options) throws Exception {
    if (pool.equals("sync")) {
      try (ThriftClientPool<BenchService.Client> clients =
          ThriftClientPool.builder(BenchService.Client::new)
              .io(io)
              .options(options)
              .endpoints(server.localAddress())
              .interceptors(List.of(tracing.clientInterceptor()))
              .build()) {
        clients.call(c -> c.get_last_sale("IBM"));
      }
    } else if (pool.equals("syncFactory")) {
      try (ThriftClientPool<BenchService.Client> clients =
          ThriftClientPool.builder(BenchService.Client::new)
              .transportFactory(ClientTransportFactory.of(io, options))
              .endpoints(server.localAddress())
              .interceptors(List.of(tracing.clientInterceptor()))
              .build()) {
        clients.call(c -> c.get_last_sale("IBM"));
      }
    } else {
      try (ThriftChannelPool<BenchService.Client> channels =
          ThriftChannelPool.builder(BenchService.Client::new)
              .io(io)
              .options(options)
              .endpoints(server.localAddress())
              .interceptors(List.of(tracing.clientInterceptor()))
              .build()) {
        channels
            .call(c -> c.send_get_last_sale("IBM"), BenchService.Client::recv_get_last_sale)
            .get(10, TimeUnit.SECONDS);
      }
    }
  }

  private static SpanData awaitOne(SpanKind kind) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      List<SpanData> found = otel.getSpans().stream().filter(s -> s.getKind() == kind).toList();
      if (!found.isEmpty() || System.nanoTime() > deadline) {
        assertThat(found).hasSize(1);
        return found.get(0);
      }
      Thread.sleep(10); // the server span ends after the reply is written
    }
  }

  @ParameterizedTest
  @CsvSource({
    "sync, FRAMED",
    "sync, UNFRAMED",
    "syncFactory, FRAMED",
    "channel, FRAMED",
    "channel, UNFRAMED"
  })
  void withArgumentHeadersTheServerSpanIsTheClientSpansChild(String pool, WireKind wire)
      throws Exception {
    call(pool, ClientOptions.builder().wireKind(wire).argumentHeaders(true).build());

    SpanData client = awaitOne(SpanKind.CLIENT);
    SpanData server = awaitOne(SpanKind.SERVER);
    assertThat(server.getTraceId()).isEqualTo(client.getTraceId());
    assertThat(server.getParentSpanId()).isEqualTo(client.getSpanId());
  }

  @ParameterizedTest
  @CsvSource({"sync, FRAMED", "channel, UNFRAMED"})
  void withoutThemTheServerStartsATrace(String pool, WireKind wire) throws Exception {
    call(pool, ClientOptions.builder().wireKind(wire).build());

    SpanData client = awaitOne(SpanKind.CLIENT);
    SpanData server = awaitOne(SpanKind.SERVER);
    assertThat(server.getTraceId()).isNotEqualTo(client.getTraceId());
    assertThat(server.getParentSpanContext().isValid()).isFalse();
  }
}
