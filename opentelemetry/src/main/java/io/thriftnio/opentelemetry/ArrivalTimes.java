package io.thriftnio.opentelemetry;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.logs.LoggerProvider;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerBuilder;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.ContextPropagators;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Dates a server span from its request's arrival. {@code Instrumenter} starts its spans "now", with
 * no way to give a start time; the server's tracer comes from this wrapper of the application's
 * OpenTelemetry instead, whose span builders take the start time that {@link #startingAt} set on
 * the thread that starts the span. Everything else is the application's.
 */
final class ArrivalTimes {

  /** The start time, in nanoseconds since the epoch, of the span this thread starts; 0: none. */
  private static final ThreadLocal<long[]> NEXT = ThreadLocal.withInitial(() -> new long[1]);

  private ArrivalTimes() {}

  /** Runs {@code start} with the spans it starts on this thread dated {@code epochNanos}. */
  static <T> T startingAt(long epochNanos, Supplier<T> start) {
    long[] next = NEXT.get();
    next[0] = epochNanos;
    try {
      return start.get();
    } finally {
      next[0] = 0;
    }
  }

  /** When the request of {@code receivedAtNanos} ({@link System#nanoTime()}) arrived, epoch ns. */
  static long epochNanos(long receivedAtNanos) {
    Instant now = Instant.now();
    long waited = Math.max(0, System.nanoTime() - receivedAtNanos);
    return now.getEpochSecond() * 1_000_000_000L + now.getNano() - waited;
  }

  /** {@code delegate}, its spans dated as {@link #startingAt} says. */
  static OpenTelemetry wrap(OpenTelemetry delegate) {
    return new OpenTelemetry() {
      @Override
      public TracerProvider getTracerProvider() {
        return new Provider(delegate.getTracerProvider());
      }

      @Override
      public MeterProvider getMeterProvider() {
        return delegate.getMeterProvider();
      }

      @Override
      public LoggerProvider getLogsBridge() {
        return delegate.getLogsBridge();
      }

      @Override
      public ContextPropagators getPropagators() {
        return delegate.getPropagators();
      }
    };
  }

  private static final class Provider implements TracerProvider {
    private final TracerProvider delegate;

    Provider(TracerProvider delegate) {
      this.delegate = delegate;
    }

    @Override
    public Tracer get(String name) {
      return new Dating(delegate.get(name));
    }

    @Override
    public Tracer get(String name, String version) {
      return new Dating(delegate.get(name, version));
    }

    @Override
    public TracerBuilder tracerBuilder(String name) {
      TracerBuilder builder = delegate.tracerBuilder(name);
      return new TracerBuilder() {
        @Override
        public TracerBuilder setSchemaUrl(String schemaUrl) {
          builder.setSchemaUrl(schemaUrl);
          return this;
        }

        @Override
        public TracerBuilder setInstrumentationVersion(String version) {
          builder.setInstrumentationVersion(version);
          return this;
        }

        @Override
        public Tracer build() {
          return new Dating(builder.build());
        }
      };
    }
  }

  private static final class Dating implements Tracer {
    private final Tracer delegate;

    Dating(Tracer delegate) {
      this.delegate = delegate;
    }

    @Override
    public SpanBuilder spanBuilder(String name) {
      return new DatedSpanBuilder(delegate.spanBuilder(name));
    }
  }

  private static final class DatedSpanBuilder implements SpanBuilder {
    private final SpanBuilder delegate;
    private boolean dated;

    DatedSpanBuilder(SpanBuilder delegate) {
      this.delegate = delegate;
    }

    @Override
    public SpanBuilder setParent(Context context) {
      delegate.setParent(context);
      return this;
    }

    @Override
    public SpanBuilder setNoParent() {
      delegate.setNoParent();
      return this;
    }

    @Override
    public SpanBuilder addLink(SpanContext spanContext) {
      delegate.addLink(spanContext);
      return this;
    }

    @Override
    public SpanBuilder addLink(SpanContext spanContext, Attributes attributes) {
      delegate.addLink(spanContext, attributes);
      return this;
    }

    @Override
    public SpanBuilder setAttribute(String key, String value) {
      delegate.setAttribute(key, value);
      return this;
    }

    @Override
    public SpanBuilder setAttribute(String key, long value) {
      delegate.setAttribute(key, value);
      return this;
    }

    @Override
    public SpanBuilder setAttribute(String key, double value) {
      delegate.setAttribute(key, value);
      return this;
    }

    @Override
    public SpanBuilder setAttribute(String key, boolean value) {
      delegate.setAttribute(key, value);
      return this;
    }

    @Override
    public <T> SpanBuilder setAttribute(AttributeKey<T> key, T value) {
      delegate.setAttribute(key, value);
      return this;
    }

    @Override
    public SpanBuilder setAllAttributes(Attributes attributes) {
      delegate.setAllAttributes(attributes);
      return this;
    }

    @Override
    public SpanBuilder setSpanKind(SpanKind spanKind) {
      delegate.setSpanKind(spanKind);
      return this;
    }

    @Override
    public SpanBuilder setStartTimestamp(long startTimestamp, TimeUnit unit) {
      dated = true;
      delegate.setStartTimestamp(startTimestamp, unit);
      return this;
    }

    @Override
    public SpanBuilder setStartTimestamp(Instant startTimestamp) {
      dated = true;
      delegate.setStartTimestamp(startTimestamp);
      return this;
    }

    @Override
    public Span startSpan() {
      long arrived = NEXT.get()[0];
      if (!dated && arrived != 0) {
        delegate.setStartTimestamp(arrived, TimeUnit.NANOSECONDS);
      }
      return delegate.startSpan();
    }
  }
}
