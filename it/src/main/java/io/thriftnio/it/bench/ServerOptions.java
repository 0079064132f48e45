package io.thriftnio.it.bench;

import io.thriftnio.core.ServerBuilder;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * The {@code serve --server-option NAME=VALUE} settings: each names a one-argument setter of the
 * library's {@link ServerBuilder} ({@code workerQueueCapacity=256}, {@code workerStartTimeout=5ms})
 * and gives its value, read by the setter's parameter type (int, long, boolean, double, a duration
 * as {@link Cli#parseDuration} reads it, an enum constant, a string). A setting the builder gains
 * later needs no change here: the bench can measure it as a row variant ({@code overload --servers
 * 'netty/worker?workerStartTimeout=5ms'}).
 */
final class ServerOptions {

  private ServerOptions() {}

  /**
   * Reads {@code NAME=VALUE} items, in order; a later item for the same name replaces the earlier.
   *
   * @throws IllegalArgumentException for an item without {@code =} or with an empty name
   */
  static Map<String, String> parse(List<String> items) {
    Map<String, String> out = new LinkedHashMap<>();
    if (items == null) {
      return out;
    }
    for (String item : items) {
      int eq = item.indexOf('=');
      if (eq <= 0 || eq == item.length() - 1) {
        throw new IllegalArgumentException(
            "server-option: '" + item + "' (expected: NAME=VALUE, e.g. workerQueueCapacity=256)");
      }
      out.put(item.substring(0, eq).trim(), item.substring(eq + 1).trim());
    }
    return out;
  }

  /** The items of {@code options} as {@code serve} takes them again. */
  static List<String> items(Map<String, String> options) {
    List<String> out = new ArrayList<>();
    options.forEach((k, v) -> out.add(k + "=" + v));
    return out;
  }

  /**
   * Calls each setter on {@code builder}.
   *
   * @throws IllegalArgumentException naming the option when the builder has no such setter, the
   *     value does not read as its type, or the setter refuses it
   */
  static void apply(ServerBuilder<?> builder, Map<String, String> options) {
    for (Map.Entry<String, String> e : options.entrySet()) {
      Method setter = setter(builder.getClass(), e.getKey());
      Object value = convert(e.getKey(), e.getValue(), setter.getParameterTypes()[0]);
      try {
        setter.invoke(builder, value);
      } catch (InvocationTargetException ex) {
        throw new IllegalArgumentException(
            "server-option: " + e.getKey() + "=" + e.getValue() + ": " + ex.getCause().getMessage(),
            ex.getCause());
      } catch (IllegalAccessException ex) {
        throw new IllegalArgumentException(
            "server-option: " + e.getKey() + ": not accessible (" + ex.getMessage() + ")", ex);
      }
    }
  }

  private static Method setter(Class<?> type, String name) {
    TreeSet<String> names = new TreeSet<>();
    Method found = null;
    for (Method m : type.getMethods()) {
      if (m.getParameterCount() == 1
          && !Modifier.isStatic(m.getModifiers())
          && ServerBuilder.class.isAssignableFrom(m.getReturnType())
          && convertible(m.getParameterTypes()[0])) {
        names.add(m.getName());
        if (m.getName().equals(name)) {
          found = m;
        }
      }
    }
    if (found == null) {
      throw new IllegalArgumentException(
          "server-option: " + name + " (expected: a setter of the server builder: " + names + ")");
    }
    return found;
  }

  private static boolean convertible(Class<?> p) {
    return p == int.class
        || p == long.class
        || p == boolean.class
        || p == double.class
        || p == Duration.class
        || p == String.class
        || p.isEnum();
  }

  static Object convert(String name, String value, Class<?> type) {
    try {
      if (type == int.class) {
        return Integer.parseInt(value);
      } else if (type == long.class) {
        return Long.parseLong(value);
      } else if (type == double.class) {
        return Double.parseDouble(value);
      } else if (type == boolean.class) {
        if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
          throw new IllegalArgumentException("not true or false");
        }
        return Boolean.parseBoolean(value);
      } else if (type == Duration.class) {
        return Cli.parseDuration(value);
      } else if (type.isEnum()) {
        for (Object c : type.getEnumConstants()) {
          if (((Enum<?>) c).name().equalsIgnoreCase(value.replace('-', '_'))) {
            return c;
          }
        }
        throw new IllegalArgumentException("not one of " + List.of(type.getEnumConstants()));
      }
      return value;
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "server-option: "
              + name
              + "="
              + value
              + " (expected: "
              + type.getSimpleName().toLowerCase(Locale.ROOT)
              + (e.getMessage() != null ? "; " + e.getMessage() : "")
              + ")",
          e);
    }
  }
}
