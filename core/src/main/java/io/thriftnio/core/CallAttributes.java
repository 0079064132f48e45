package io.thriftnio.core;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The attributes of one call's context, server or client: a small map created on the first set,
 * guarded by this object, since interceptors of one call may run on different threads.
 */
final class CallAttributes {
  private Map<Object, Object> values;

  synchronized Object get(Object key) {
    return values == null ? null : values.get(Objects.requireNonNull(key, "key"));
  }

  /** Sets {@code key} to {@code value}; {@code null} removes it. */
  synchronized void set(Object key, Object value) {
    Objects.requireNonNull(key, "key");
    if (value == null) {
      if (values != null) {
        values.remove(key);
      }
      return;
    }
    if (values == null) {
      values = new HashMap<>(4);
    }
    values.put(key, value);
  }

  /** The name of a typed attribute; compares by identity. */
  abstract static class NamedKey {
    private final String name;

    NamedKey(String name) {
      this.name = Objects.requireNonNull(name, "name");
    }

    @Override
    public final String toString() {
      return name;
    }
  }
}
