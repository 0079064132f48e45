package io.thriftnio.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(20)
class PayloadsTest {

  @ParameterizedTest
  @ValueSource(ints = {0, 1, Payloads.SMALL, Payloads.MEDIUM, Payloads.LARGE})
  void payloadOfChecksAgainstItself(int size) {
    ByteBuffer p = Payloads.of(size, 42);
    assertThat(p.remaining()).isEqualTo(size);
    assertThat(p.hasArray()).isTrue();
    assertThat(Payloads.check(p, size, 42)).isTrue();
    assertThat(p.position()).isZero(); // check does not consume
    assertThat(Payloads.of(size, 42)).isEqualTo(p); // deterministic
  }

  @Test
  void sizesAreTheMatrixSizes() {
    assertThat(Payloads.SMALL).isEqualTo(300);
    assertThat(Payloads.MEDIUM).isEqualTo(3072);
    assertThat(Payloads.LARGE).isEqualTo(3 * 1024 * 1024);
  }

  @Test
  void everySingleFlippedByteIsDetected() {
    int size = Payloads.MEDIUM;
    ByteBuffer p = Payloads.of(size, 7);
    for (int i = 0; i < size; i++) {
      byte original = p.get(i);
      p.put(i, (byte) (original ^ 0x01));
      if (Payloads.check(p, size, 7)) {
        throw new AssertionError("flipped byte " + i + " not detected");
      }
      p.put(i, original);
    }
    assertThat(Payloads.check(p, size, 7)).isTrue();
  }

  @Test
  void wrongSeedSizeOrNullIsDetected() {
    ByteBuffer p = Payloads.of(Payloads.SMALL, 1);
    assertThat(Payloads.check(p, Payloads.SMALL, 2)).isFalse();
    assertThat(Payloads.check(p, Payloads.SMALL - 1, 1)).isFalse();
    assertThat(Payloads.check(null, 0, 1)).isFalse();
    ByteBuffer shorter = p.duplicate();
    shorter.limit(Payloads.SMALL - 1);
    assertThat(Payloads.check(shorter, Payloads.SMALL, 1)).isFalse();
    assertThat(Payloads.of(Payloads.SMALL, 1)).isNotEqualTo(Payloads.of(Payloads.SMALL, 2));
  }

  @Test
  void checkReadsFromThePositionOfASlice() {
    ByteBuffer p = Payloads.of(100, 5);
    ByteBuffer framed = ByteBuffer.allocate(104);
    framed.putInt(100).put(p.duplicate()).flip();
    framed.position(4);
    assertThat(Payloads.check(framed, 100, 5)).isTrue();
    assertThat(framed.position()).isEqualTo(4);
    ByteBuffer direct = ByteBuffer.allocateDirect(100).put(p.duplicate()).flip();
    assertThat(Payloads.check(direct, 100, 5)).isTrue();
  }

  @ParameterizedTest
  @CsvSource({
    "300, 300",
    "3k, 3072",
    "3K, 3072",
    "3m, 3145728",
    "' 3m ', 3145728",
    "0, 0",
    "1024m, 1073741824",
  })
  void parseSize(String text, int bytes) {
    assertThat(Payloads.parseSize(text)).isEqualTo(bytes);
  }

  @ParameterizedTest
  @ValueSource(
      ints = {0, 1, 300, 1000, 1024, 3072, 3000, 1536, 3 * 1024 * 1024, 5 * 1024 * 1024 + 1})
  void formatSizeRoundTrips(int size) {
    assertThat(Payloads.parseSize(Payloads.formatSize(size))).isEqualTo(size);
  }

  @Test
  void formatSizeUsesTheLargestExactUnit() {
    assertThat(Payloads.formatSize(300)).isEqualTo("300");
    assertThat(Payloads.formatSize(3072)).isEqualTo("3k");
    assertThat(Payloads.formatSize(3 * 1024 * 1024)).isEqualTo("3m");
    assertThat(Payloads.formatSize(1025)).isEqualTo("1025");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "abc", "3g", "3kb", "k", "1.5k", "3 k"})
  void badSizesAreRejectedWithTheFormInTheMessage(String text) {
    assertThatThrownBy(() -> Payloads.parseSize(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "size: "
                + text
                + " (expected: bytes, or a number followed by k or m, e.g. 300, 3k, 3m)");
  }

  @ParameterizedTest
  @ValueSource(strings = {"-1", "-3k", "1025m", "1073741825", "9223372036854775807"})
  void sizesOutOfRangeAreRejected(String text) {
    assertThatThrownBy(() -> Payloads.parseSize(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("size: " + text + " (expected: 0..1g)");
  }

  @Test
  void aHugeNumberDoesNotWrapAroundIntoAValidSize() {
    // (2^54 + 1) KiB wraps to exactly 1 KiB in 64-bit arithmetic.
    String wraps = Long.toString((1L << 54) + 1) + "k";
    assertThatThrownBy(() -> Payloads.parseSize(wraps))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("size: " + wraps + " (expected: ");
  }
}
