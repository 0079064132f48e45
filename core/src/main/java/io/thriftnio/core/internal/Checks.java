package io.thriftnio.core.internal;

import java.time.Duration;

/** Argument checks whose messages share one form: {@code name: value (expected: rule)}. */
public final class Checks {
  private Checks() {}

  public static int positive(String name, int value) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
    }
    return value;
  }

  public static int nonNegative(String name, int value) {
    if (value < 0) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: >= 0)");
    }
    return value;
  }

  public static Duration positive(String name, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
    }
    return value;
  }

  public static Duration nonNegative(String name, Duration value) {
    if (value == null || value.isNegative()) {
      throw new IllegalArgumentException(name + ": " + value + " (expected: >= 0, 0 = off)");
    }
    return value;
  }

  public static <T> T notNull(String name, T value) {
    if (value == null) {
      throw new IllegalArgumentException(name + ": null (expected: not null)");
    }
    return value;
  }
}
