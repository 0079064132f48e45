package io.thriftnio.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.testing.junit5.OpenTelemetryExtension;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.netty.NettyClientIo;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.pool.ClientTransportFactory;
import io.thriftnio.pool.ThriftChannelPool;
import io.thriftnio.pool.ThriftClientPool;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The client interceptor in the pools, over framed connections: a pooled call's {@code CLIENT} span
 * is a child of the span current where the caller made it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PooledCallTracingTest {

  @RegisterExtension static final OpenTelemetryExtension otel = OpenTelemetryExtension.create();

  /** Released once the test has added its dependent stage. */
  private final CountDownLatch released = new CountDownLatch(1);

  private ThriftServer server;

  /** {@code sleep} waits for {@link #released}, whatever its argument. */
  private final class GatedSleep extends BenchHandler {
    @Override
    public void sleep(int millis) {
      try {
        released.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private NettyClientIo io;
  private ThriftTracing tracing;

  @BeforeEach
  void start() throws Exception {
    tracing = ThriftTracing.create(otel.getOpenTelemetry());
    server =
        NettyThriftServer.builder()
            .processor(new BenchService.Processor<>(new GatedSleep()))
            .ioStrategy(IoStrategy.WORKER)
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .build()
            .start();
    io = NettyClientIo.create(1);
  }

  @AfterEach
  void close() {
    io.close();
    server.close();
  }

  /** The {@code CLIENT} spans, each checked to be a child of {@code parent}. */
  private void assertClientSpansAreChildrenOf(Span parent, int count) {
    List<SpanData> clients =
        otel.getSpans().stream().filter(s -> s.getKind() == SpanKind.CLIENT).toList();
    assertThat(clients).hasSize(count);
    assertThat(clients)
        .allSatisfy(
            s -> {
              assertThat(s.getName()).isEqualTo("echo");
              assertThat(s.getParentSpanId()).isEqualTo(parent.getSpanContext().getSpanId());
              assertThat(s.getTraceId()).isEqualTo(parent.getSpanContext().getTraceId());
            });
  }

  @Test
  void aSyncPoolsCallsAreChildrenOfTheCallersSpan() throws Exception {
    Span parent = otel.getOpenTelemetry().getTracer("test").spanBuilder("caller").startSpan();
    try (ThriftClientPool<BenchService.Client> pool =
            ThriftClientPool.builder(BenchService.Client::new)
                .endpoints(server.localAddress())
                .transportFactory(ClientTransportFactory.of(io, ClientOptions.defaults()))
                .interceptors(List.of(tracing.clientInterceptor()))
                .build();
        Scope ignored = parent.makeCurrent()) {
      pool.call(c -> c.echo(ByteBuffer.allocate(2)));
      pool.call(c -> c.echo(ByteBuffer.allocate(2)));
    }
    parent.end();
    assertClientSpansAreChildrenOf(parent, 2);
  }

  private ThriftChannelPool<BenchService.Client> channelPool() {
    return ThriftChannelPool.builder(BenchService.Client::new)
        .io(io)
        .options(ClientOptions.defaults())
        .endpoints(server.localAddress())
        .interceptors(List.of(tracing.clientInterceptor()))
        .build();
  }

  private static void echo(ThriftChannelPool<BenchService.Client> pool) throws Exception {
    pool.call(c -> c.send_echo(ByteBuffer.allocate(2)), BenchService.Client::recv_echo)
        .get(10, TimeUnit.SECONDS);
  }

  @Test
  void aChannelPoolsCallsOnAnOpenConnectionAreChildrenOfTheCallersSpan() throws Exception {
    Span parent = otel.getOpenTelemetry().getTracer("test").spanBuilder("caller").startSpan();
    try (ThriftChannelPool<BenchService.Client> pool = channelPool()) {
      echo(pool); // opens the connection, outside the caller's span
      otel.clearSpans();
      try (Scope ignored = parent.makeCurrent()) {
        echo(pool);
        echo(pool);
      }
    }
    parent.end();
    assertClientSpansAreChildrenOf(parent, 2);
  }

  // Needs the channel pool to call attach around a future's completion (branch hdr-client): fails
  // before. The handler waits until the dependent stage is added, so that it runs where the
  // future completes, not on this thread.
  @Test
  void aChannelPoolCallsContinuationRunsInTheCallersContext() throws Exception {
    Span parent = otel.getOpenTelemetry().getTracer("test").spanBuilder("caller").startSpan();
    try (ThriftChannelPool<BenchService.Client> pool = channelPool()) {
      echo(pool); // opens the connection
      CompletableFuture<String> seen;
      try (Scope ignored = parent.makeCurrent()) {
        seen =
            pool.callVoid(c -> c.send_sleep(0), BenchService.Client::recv_sleep)
                .thenApply(done -> Span.current().getSpanContext().getSpanId());
      }
      released.countDown();
      assertThat(seen.get(10, TimeUnit.SECONDS)).isEqualTo(parent.getSpanContext().getSpanId());
    }
    parent.end();
  }

  // The pool runs the interceptors' beforeCall of a call that waits for a connection (or a retry,
  // a hedge) on the thread that serves the wait, an IO thread: the interceptor's capture makes the
  // caller's context current there. Without capture the span starts a trace of its own.
  @Test
  void aChannelPoolsFirstCallIsAChildOfTheCallersSpan() throws Exception {
    Span parent = otel.getOpenTelemetry().getTracer("test").spanBuilder("caller").startSpan();
    try (ThriftChannelPool<BenchService.Client> pool = channelPool();
        Scope ignored = parent.makeCurrent()) {
      echo(pool); // waits for the pool's first connection
    }
    parent.end();
    assertClientSpansAreChildrenOf(parent, 1);
  }
}
