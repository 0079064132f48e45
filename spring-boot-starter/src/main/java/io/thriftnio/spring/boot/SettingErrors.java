package io.thriftnio.spring.boot;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Puts the property path on a builder's validation message: {@code maxFrameSize: -1 (expected: >
 * 0)} from {@code ServerBuilder} becomes {@code thrift.server.max-frame-size: -1 (expected: > 0)}.
 * A message that names no property of the record keeps its text after the prefix.
 */
final class SettingErrors {

  private static final Pattern SETTING = Pattern.compile("^([a-z][A-Za-z0-9]*): ");

  private SettingErrors() {}

  /**
   * Runs a build step; an {@link IllegalArgumentException} or {@link IllegalStateException} it
   * throws is thrown again, of the same type, with the path on its message and itself as cause.
   *
   * @param prefix the properties' path, e.g. {@code thrift.server}
   * @param properties the record whose components are the settings under {@code prefix}
   */
  static <T> T withPath(String prefix, Class<? extends Record> properties, Supplier<T> step) {
    try {
      return step.get();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(message(prefix, properties, e.getMessage()), e);
    } catch (IllegalStateException e) {
      throw new IllegalStateException(message(prefix, properties, e.getMessage()), e);
    }
  }

  static String message(String prefix, Class<? extends Record> properties, String message) {
    String text = String.valueOf(message);
    Matcher m = SETTING.matcher(text);
    if (m.find() && names(properties).contains(m.group(1))) {
      return prefix + "." + kebab(m.group(1)) + ": " + text.substring(m.end());
    }
    return prefix + ": " + text;
  }

  private static Set<String> names(Class<? extends Record> properties) {
    return Arrays.stream(properties.getRecordComponents())
        .map(RecordComponent::getName)
        .collect(Collectors.toSet());
  }

  /** {@code maxFrameSize} to {@code max-frame-size}, as the properties are written. */
  static String kebab(String camel) {
    return camel.replaceAll("([A-Z])", "-$1").toLowerCase(java.util.Locale.ROOT);
  }
}
