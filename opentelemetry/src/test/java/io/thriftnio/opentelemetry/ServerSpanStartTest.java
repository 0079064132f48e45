package io.thriftnio.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.junit5.OpenTelemetryExtension;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.netty.NettyThriftServer;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A server span starts when its request arrived, not when a worker took it: a call that waited
 * behind another for the only worker has that wait inside its span.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServerSpanStartTest {

  @RegisterExtension static final OpenTelemetryExtension otel = OpenTelemetryExtension.create();

  private final CountDownLatch sleeping = new CountDownLatch(1);
  private final CountDownLatch wake = new CountDownLatch(1);
  private final CountDownLatch echoQueued = new CountDownLatch(1);

  /** {@code sleep} holds the only worker until {@link #wake}. */
  private final class Blocking extends BenchHandler {
    @Override
    public void sleep(int millis) {
      sleeping.countDown();
      try {
        wake.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static BenchService.Client client(TTransport transport) {
    return new BenchService.Client(new TBinaryProtocol(transport));
  }

  @Test
  void aCallThatWaitedForAWorkerHasTheWaitInItsSpan() throws Exception {
    ExecutorService worker = Executors.newSingleThreadExecutor();
    ExecutorService callers = Executors.newFixedThreadPool(2);
    AtomicBoolean busy = new AtomicBoolean();
    // The only place the server hands calls to: once sleep holds the worker, the next task
    // handed over is the echo, queued behind it, its arrival time already taken.
    Executor watched =
        task -> {
          if (busy.get()) {
            echoQueued.countDown();
          }
          worker.execute(task);
        };
    try (ThriftServer server =
        NettyThriftServer.builder()
            .processor(new BenchService.Processor<>(new Blocking()))
            .ioStrategy(IoStrategy.WORKER)
            .workerExecutor(watched)
            .addInterceptor(ThriftTracing.create(otel.getOpenTelemetry()).serverInterceptor())
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .build()
            .start()) {
      InetSocketAddress address = server.localAddress();
      CompletableFuture<Void> sleep =
          CompletableFuture.runAsync(() -> call(address, c -> c.sleep(1)), callers);
      assertThat(sleeping.await(10, TimeUnit.SECONDS)).isTrue();
      busy.set(true);
      CompletableFuture<Void> echo =
          CompletableFuture.runAsync(
              () -> call(address, c -> c.echo(ByteBuffer.wrap(new byte[] {1}))), callers);
      assertThat(echoQueued.await(10, TimeUnit.SECONDS)).isTrue();
      Instant whileQueued = Instant.now();
      wake.countDown();
      sleep.get(10, TimeUnit.SECONDS);
      echo.get(10, TimeUnit.SECONDS);

      SpanData span =
          otel.getSpans().stream()
              .filter(s -> s.getKind() == SpanKind.SERVER && s.getName().equals("echo"))
              .findFirst()
              .orElseThrow();
      long queuedEpochNanos = whileQueued.getEpochSecond() * 1_000_000_000L + whileQueued.getNano();
      assertThat(span.getStartEpochNanos()).isLessThan(queuedEpochNanos);
    } finally {
      wake.countDown();
      callers.shutdownNow();
      worker.shutdownNow();
    }
  }

  /** One call on a connection of its own. */
  private interface Call {
    void on(BenchService.Client client) throws Exception;
  }

  private static void call(InetSocketAddress address, Call call) {
    try (TTransport transport =
        new TFramedTransport(new TSocket(address.getHostString(), address.getPort(), 10_000))) {
      transport.open();
      call.on(client(transport));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
