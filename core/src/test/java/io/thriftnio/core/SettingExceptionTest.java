package io.thriftnio.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.settings.SettingException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class SettingExceptionTest {

  @Test
  void carriesTheSettingTheValueAndTheRuleInTheOneMessageForm() {
    SettingException e = new SettingException("maxFrameSize", -1, "> 0");

    assertThat(e).isInstanceOf(IllegalArgumentException.class);
    assertThat(e.setting()).isEqualTo("maxFrameSize");
    assertThat(e.value()).isEqualTo("-1");
    assertThat(e.rule()).isEqualTo("> 0");
    assertThat(e).hasMessage("maxFrameSize: -1 (expected: > 0)");
  }

  @Test
  void showsANullValueAsNullAndKeepsTheCause() {
    RuntimeException cause = new RuntimeException("why");
    SettingException e = new SettingException("sasl", null, "set when wireKind is SASL", cause);

    assertThat(e.value()).isEqualTo("null");
    assertThat(e).hasMessage("sasl: null (expected: set when wireKind is SASL)").hasCause(cause);
  }

  @Test
  void aBuilderRefusesAValueOutOfRangeWithTheSettingsParts() {
    assertThatThrownBy(() -> ClientOptions.builder().connectTimeout(Duration.ofSeconds(-1)).build())
        .isInstanceOfSatisfying(
            SettingException.class,
            e -> {
              assertThat(e.setting()).isEqualTo("connectTimeout");
              assertThat(e.value()).isEqualTo("PT-1S");
              assertThat(e.rule()).isEqualTo("> 0");
            })
        .hasMessage("connectTimeout: PT-1S (expected: > 0)");
  }

  @Test
  void aBuilderRefusesAnIgnoredSettingWithTheSameType() {
    assertThatThrownBy(
            () -> ClientOptions.builder().wireKind(WireKind.FRAMED).httpPath("/rpc").build())
        .isInstanceOfSatisfying(
            SettingException.class,
            e -> {
              assertThat(e.setting()).isEqualTo("httpPath");
              assertThat(e.value()).isEqualTo("\"/rpc\"");
            });
  }
}
