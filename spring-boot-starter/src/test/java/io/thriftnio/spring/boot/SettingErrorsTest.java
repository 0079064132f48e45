package io.thriftnio.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.settings.SettingException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class SettingErrorsTest {

  @Test
  void aSettingExceptionIsNamedByItsPropertyPath() {
    SettingException refused = new SettingException("maxFrameSize", -1, "> 0");

    assertThatThrownBy(() -> fail(refused))
        .isInstanceOfSatisfying(
            SettingException.class,
            e -> {
              assertThat(e.setting()).isEqualTo("thrift.server.max-frame-size");
              assertThat(e.value()).isEqualTo("-1");
              assertThat(e.rule()).isEqualTo("> 0");
            })
        .hasMessage("thrift.server.max-frame-size: -1 (expected: > 0)")
        .hasCause(refused);
  }

  @Test
  void aFailureWithoutASettingExceptionKeepsItsTextAfterThePrefixEvenInTheSettingsForm() {
    IllegalArgumentException other =
        new IllegalArgumentException("maxFrameSize: -1 (expected: > 0)");

    assertThatThrownBy(() -> fail(other))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("thrift.server: maxFrameSize: -1 (expected: > 0)")
        .hasCause(other);
    IllegalStateException state = new IllegalStateException("processor: null");
    assertThatThrownBy(() -> fail(state))
        .isExactlyInstanceOf(IllegalStateException.class)
        .hasMessage("thrift.server: processor: null");
  }

  @Test
  void aSettingThatIsNoPropertyKeepsItsMessageAfterThePrefix() {
    SettingException refused = new SettingException("options.wireKind", "HTTP", "one of [FRAMED]");

    assertThatThrownBy(() -> fail(refused))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("thrift.server: options.wireKind: HTTP (expected: one of [FRAMED])")
        .hasCause(refused);
  }

  private static Object fail(RuntimeException e) {
    return SettingErrors.withPath(
        "thrift.server",
        ThriftServerProperties.class,
        () -> {
          throw e;
        });
  }
}
