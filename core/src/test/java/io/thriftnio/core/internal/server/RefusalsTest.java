package io.thriftnio.core.internal.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** How a refusal's message says a duration: as a person reads it, not in ISO form. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class RefusalsTest {

  @Test
  void durationsReadInMillisecondsOrMicroseconds() {
    assertThat(Refusals.describe(TimeUnit.MILLISECONDS.toNanos(5))).isEqualTo("5 ms");
    assertThat(Refusals.describe(2_500_000)).isEqualTo("2.5 ms"); // was PT0.0025S
    assertThat(Refusals.describe(12_345_678)).isEqualTo("12.3 ms");
    assertThat(Refusals.describe(500_000)).isEqualTo("500 us");
    assertThat(Refusals.describe(0)).isEqualTo("0 ms");
  }
}
