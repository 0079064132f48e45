package io.thriftnio.core.util.internal;

import java.time.Duration;
import java.util.List;

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

  /**
   * A copy of {@code list}, checked: neither it nor an element is {@code null}.
   *
   * @throws IllegalArgumentException naming the first {@code null}
   */
  public static <T> List<T> noNulls(String name, List<? extends T> list) {
    if (list == null) {
      throw new IllegalArgumentException(name + ": null (expected: a list, empty for none)");
    }
    for (int i = 0; i < list.size(); i++) {
      if (list.get(i) == null) {
        throw new IllegalArgumentException(name + "[" + i + "]: null (expected: not null)");
      }
    }
    return List.copyOf(list);
  }
}
