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

/**
 * A {@link ServerInterceptor} that times every call into {@code thrift.server.requests}, tagged
 * {@code method} and {@code outcome} ({@code success}, {@code declared_exception}, {@code
 * application_exception}, {@code undeclared_failure}, {@code refused}, {@code oneway}, {@code
 * timed_out}: {@link CallOutcome}'s names in lower case), plus the tags given. A call that timed
 * out ({@code ServerBuilder.handlerTimeout}) is timed up to its timeout. Each call's queue time
 * ({@link ServerCallContext#queueTime()}: from its arrival to its start, the wait for a worker)
 * goes into {@code thrift.server.queue}, tagged {@code method} and the tags given; calls the server
 * shed without running them (an overload) reach no interceptor and are counted by {@code
 * ServerMeters}.
 *
 * <pre>{@code
 * NettyThriftServer.builder()
 *     .processor(processor)
 *     .addInterceptor(new MethodTimers(registry, Tags.of("server", "quotes")))
 *     .build();
 * }</pre>
 *
 * <p>The method tag takes the method names the server's processor answers; a caller that sends
 * unknown names can add at most one timer per name it invents, so put a limit on the registry
 * ({@code MeterFilter.maximumAllowableTags}) when the port faces untrusted peers.
 */
public final class MethodTimers implements ServerInterceptor {

  private final MeterRegistry registry;
  private final Tags tags;

  /**
   * @param registry where the timers go
   * @param tags further tags on every timer
   */
  public MethodTimers(MeterRegistry registry, Iterable<Tag> tags) {
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
