package io.thriftnio.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.junit5.OpenTelemetryExtension;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.thriftnio.core.internal.server.ProcessorInvoker;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The server span carries how long its call waited to start (issue 41). */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class QueueTimeSpanTest {

  @RegisterExtension static final OpenTelemetryExtension otel = OpenTelemetryExtension.create();

  private static final AttributeKey<Double> QUEUE_DURATION =
      AttributeKey.doubleKey("rpc.thrift.queue.duration");

  @Test
  void theServerSpanCarriesTheQueueTimeInSeconds() throws Exception {
    ProcessorInvoker invoker =
        ProcessorInvoker.of(
                new BenchService.Processor<>(new BenchHandler()),
                new TBinaryProtocol.Factory(),
                new TBinaryProtocol.Factory(),
                1 << 20)
            .withInterceptors(
                List.of(ThriftTracing.create(otel.getOpenTelemetry()).serverInterceptor()));
    long queued = TimeUnit.MILLISECONDS.toNanos(7);
    long received = System.nanoTime() - queued;
    CompletableFuture<ByteBuffer> reply = new CompletableFuture<>();
    invoker.invoke(
        Requests.of(c -> c.send_echo(ByteBuffer.wrap(new byte[] {1}))).payload(),
        new ProcessorInvoker.Completion() {
          @Override
          public void replied(ByteBuffer frame, boolean failed) {
            reply.complete(frame);
          }

          @Override
          public void unreadable(Throwable cause) {
            reply.completeExceptionally(cause);
          }

          @Override
          public long receivedAtNanos() {
            return received;
          }

          @Override
          public long queuedNanos() {
            return queued; // as a server's call path reports a call that waited for a worker
          }
        });
    reply.get(10, TimeUnit.SECONDS);

    SpanData span = otel.getSpans().get(0);
    assertThat(span.getAttributes().get(QUEUE_DURATION)).isEqualTo(0.007);
  }
}
