package io.thriftnio.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.junit5.OpenTelemetryExtension;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ServerInterceptor;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.util.internal.ArgumentHeaders;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.pool.ClientTransportFactory;
import io.thriftnio.pool.ThriftAsyncClientPool;
import io.thriftnio.pool.ThriftChannelPool;
import io.thriftnio.pool.ThriftClientPool;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TMessage;
import org.apache.thrift.protocol.TMessageType;
import org.apache.thrift.transport.THttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The trace context in field 8888 of the arguments ({@code ClientOptions.argumentHeaders}) between
 * thrift-nio clients and servers, over framed and unframed connections, which carry no headers, and
 * over HTTP: from a sync pool (its options, or those of its transport factory, on this library's
 * transports or libthrift's stock sockets), the async pool and a channel pool; and read from a
 * stock {@code THttpClient}'s request.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ArgumentHeadersTracingTest {

  @RegisterExtension static final OpenTelemetryExtension otel = OpenTelemetryExtension.create();

  private ThriftTracing tracing;
  private ThriftServer server;
  private NettyClientIo io;

  /** What each call carried in field 8888 of its arguments, as the server read it. */
  private final List<Map<String, String>> inArguments = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    tracing = ThriftTracing.create(otel.getOpenTelemetry(), "BenchService");
    server =
        NettyThriftServer.builder()
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .wireKinds(WireKind.FRAMED, WireKind.UNFRAMED, WireKind.HTTP)
            .addInterceptor(tracing.serverInterceptor())
            .addInterceptor(
                new ServerInterceptor() {
                  @Override
                  public void beforeCall(ServerCallContext call) {
                    inArguments.add(call.argumentHeaders());
                  }
                })
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
    } else if (pool.equals("syncStock")) {
      // No io: the pool opens stock libthrift sockets from its options.
      try (ThriftClientPool<BenchService.Client> clients =
          ThriftClientPool.builder(BenchService.Client::new)
              .options(options)
              .endpoints(server.localAddress())
              .interceptors(List.of(tracing.clientInterceptor()))
              .build()) {
        clients.call(c -> c.get_last_sale("IBM"));
      }
    } else if (pool.equals("syncStockFactory")) {
      try (ThriftClientPool<BenchService.Client> clients =
          ThriftClientPool.builder(BenchService.Client::new)
              .transportFactory(ClientTransportFactory.stock(options))
              .endpoints(server.localAddress())
              .interceptors(List.of(tracing.clientInterceptor()))
              .build()) {
        clients.call(c -> c.get_last_sale("IBM"));
      }
    } else if (pool.equals("async")) {
      try (ThriftAsyncClientPool<BenchService.AsyncClient> clients =
          ThriftAsyncClientPool.builder(BenchService.AsyncClient.Factory::new)
              .options(options)
              .endpoints(server.localAddress())
              .interceptors(List.of(tracing.clientInterceptor()))
              .build()) {
        clients
            .futureIface(BenchService.FutureIface.class)
            .get_last_sale("IBM")
            .get(10, TimeUnit.SECONDS);
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
    "sync, HTTP",
    "syncFactory, FRAMED",
    "syncFactory, HTTP",
    "syncStock, FRAMED",
    "syncStock, UNFRAMED",
    "syncStockFactory, FRAMED",
    "syncStockFactory, UNFRAMED",
    "async, FRAMED",
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
    // Written in the arguments, on HTTP too (where the request's headers carry it as well).
    assertThat(inArguments).hasSize(1);
    assertThat(inArguments.get(0).get("traceparent"))
        .as("field 8888 as the server read it")
        .startsWith("00-" + client.getTraceId() + "-" + client.getSpanId() + "-");
  }

  @Test
  void aStockHttpClientsContextInTheArgumentsIsTheParent() throws Exception {
    // A stock THttpClient sends no trace header: the server reads field 8888 of the arguments.
    String traceId = "0af7651916cd43dd8448eb211c80319c";
    String parentId = "b7ad6b7169203331";
    Requests sale = Requests.of(c -> c.send_get_last_sale("IBM"));
    ByteBuffer request =
        ArgumentHeaders.write(
            sale.payload(), Map.of("traceparent", "00-" + traceId + "-" + parentId + "-01"));
    int port = ((InetSocketAddress) server.localAddress()).getPort();
    THttpClient http = new THttpClient("http://127.0.0.1:" + port + "/");
    try {
      byte[] bytes = new byte[request.remaining()];
      request.get(bytes);
      http.write(bytes);
      http.flush();
      TMessage reply = new TBinaryProtocol(http).readMessageBegin();
      assertThat(reply.type).isEqualTo(TMessageType.REPLY);
    } finally {
      http.close();
    }

    SpanData span = awaitOne(SpanKind.SERVER);
    assertThat(span.getTraceId()).isEqualTo(traceId);
    assertThat(span.getParentSpanId()).isEqualTo(parentId);
  }

  @ParameterizedTest
  @CsvSource({"sync, FRAMED", "channel, UNFRAMED", "syncStockFactory, FRAMED", "async, FRAMED"})
  void withoutThemTheServerStartsATrace(String pool, WireKind wire) throws Exception {
    call(pool, ClientOptions.builder().wireKind(wire).build());

    SpanData client = awaitOne(SpanKind.CLIENT);
    SpanData server = awaitOne(SpanKind.SERVER);
    assertThat(server.getTraceId()).isNotEqualTo(client.getTraceId());
    assertThat(server.getParentSpanContext().isValid()).isFalse();
  }
}
