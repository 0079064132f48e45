package io.thriftnio.micrometer;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ServerInterceptor;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/** The per-method timers of {@link ServerMeters#methodTimers(MeterRegistry, Iterable)}. */
final class MethodTimers implements ServerInterceptor {

  private final MeterRegistry registry;
  private final Tags tags;

  MethodTimers(MeterRegistry registry, Iterable<Tag> tags) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.tags = Tags.of(tags);
  }

  @Override
  public void afterCall(ServerCallContext context, CallOutcome outcome, long nanos) {
    Timer.builder("thrift.server.requests")
        .description("calls served, by method and outcome")
        .tags(
            tags.and(
                "method", context.methodName(), "outcome", outcome.name().toLowerCase(Locale.ROOT)))
        .register(registry)
        .record(nanos, TimeUnit.NANOSECONDS);
    Timer.builder("thrift.server.queue")
        .description("time calls waited to start, for a worker or behind earlier calls, by method")
        .tags(tags.and("method", context.methodName()))
        .register(registry)
        .record(context.queueTime());
  }
}
