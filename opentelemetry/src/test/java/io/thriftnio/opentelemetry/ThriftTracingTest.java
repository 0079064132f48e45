package io.thriftnio.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.testing.junit5.OpenTelemetryExtension;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.thriftnio.core.CallOutcome;
import io.thriftnio.core.ClientCallContext;
import java.util.concurrent.TimeUnit;
import org.apache.thrift.protocol.TMessageType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The builder: its default OpenTelemetry, the service name's rules. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ThriftTracingTest {

  // Installs its SDK as GlobalOpenTelemetry for the class.
  @RegisterExtension static final OpenTelemetryExtension otel = OpenTelemetryExtension.create();

  @Test
  void theGlobalOpenTelemetryRecords() throws Exception {
    ThriftTracing tracing = ThriftTracing.create(GlobalOpenTelemetry.get());
    ClientCallContext call = new ClientCallContext("echo", 1, TMessageType.CALL, null);
    tracing.clientInterceptor().beforeCall(call);
    tracing.clientInterceptor().afterCall(call, CallOutcome.SUCCESS, null, 1);

    assertThat(otel.getSpans()).extracting(SpanData::getName).containsExactly("echo");
    assertThat(otel.getSpans().get(0).getInstrumentationScopeInfo().getName())
        .isEqualTo(ThriftTracing.INSTRUMENTATION_NAME);
  }

  @Test
  void theInterceptorsAreOneInstanceEach() {
    ThriftTracing tracing = ThriftTracing.create(otel.getOpenTelemetry());
    assertThat(tracing.serverInterceptor()).isSameAs(tracing.serverInterceptor());
    assertThat(tracing.clientInterceptor()).isSameAs(tracing.clientInterceptor());
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "a/b", "a:b"})
  void aServiceNameThatWouldBreakTheSpanNameIsRefused(String name) {
    assertThatThrownBy(() -> ThriftTracing.create(OpenTelemetry.noop(), name))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("serviceName: \"" + name + "\" (expected: not empty, without '/' or ':')");
  }

  @Test
  void openTelemetryIsRequired() {
    assertThatThrownBy(() -> ThriftTracing.create(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("openTelemetry");
  }
}
