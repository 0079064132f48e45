package io.thriftnio.core.util.internal;

import io.thriftnio.core.settings.SettingException;
import java.time.Duration;
import java.util.List;

/**
 * Argument checks whose messages share one form: {@code name: value (expected: rule)}, each a
 * {@link SettingException}.
 */
public final class Checks {
  private Checks() {}

  public static int positive(String name, int value) {
    if (value <= 0) {
      throw new SettingException(name, value, "> 0");
    }
    return value;
  }

  public static int nonNegative(String name, int value) {
    if (value < 0) {
      throw new SettingException(name, value, ">= 0");
    }
    return value;
  }

  public static Duration positive(String name, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new SettingException(name, value, "> 0");
    }
    return value;
  }

  public static Duration nonNegative(String name, Duration value) {
    if (value == null || value.isNegative()) {
      throw new SettingException(name, value, ">= 0, 0 = off");
    }
    return value;
  }

  public static <T> T notNull(String name, T value) {
    if (value == null) {
      throw new SettingException(name, null, "not null");
    }
    return value;
  }

  /**
   * A copy of {@code list}, checked: neither it nor an element is {@code null}.
   *
   * @throws SettingException naming the first {@code null}
   */
  public static <T> List<T> noNulls(String name, List<? extends T> list) {
    if (list == null) {
      throw new SettingException(name, null, "a list, empty for none");
    }
    for (int i = 0; i < list.size(); i++) {
      if (list.get(i) == null) {
        throw new SettingException(name + "[" + i + "]", null, "not null");
      }
    }
    return List.copyOf(list);
  }
}
