package io.thriftnio.spring.boot;

import io.thriftnio.core.settings.SettingException;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Puts the property path on a builder's refused setting: a {@link SettingException} for {@code
 * maxFrameSize} from {@code ServerBuilder} ({@code maxFrameSize: -1 (expected: > 0)}) becomes one
 * for {@code thrift.server.max-frame-size} ({@code thrift.server.max-frame-size: -1 (expected: >
 * 0)}). The setting is taken from {@link SettingException#setting()}, never from the message text.
 * Any other failure, or a setting that is no property of the record, keeps its text after the
 * prefix.
 */
final class SettingErrors {

  private SettingErrors() {}

  /**
   * Runs a build step. A {@link SettingException} it throws is thrown again as one for the property
   * path; any other {@link IllegalArgumentException} or {@link IllegalStateException} is thrown
   * again, of the same type, with the prefix on its message; each with the original as cause.
   *
   * @param prefix the properties' path, e.g. {@code thrift.server}
   * @param properties the record whose components are the settings under {@code prefix}
   */
  static <T> T withPath(String prefix, Class<? extends Record> properties, Supplier<T> step) {
    try {
      return step.get();
    } catch (SettingException e) {
      throw forPath(prefix, properties, e);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(prefix + ": " + e.getMessage(), e);
    } catch (IllegalStateException e) {
      throw new IllegalStateException(prefix + ": " + e.getMessage(), e);
    }
  }

  /**
   * The same refusal named by its property, {@code prefix.kebab-name}; a setting that is no
   * property of the record keeps its message after the prefix.
   */
  static IllegalArgumentException forPath(
      String prefix, Class<? extends Record> properties, SettingException e) {
    String setting = e.setting();
    int index = setting.indexOf('[');
    String name = index < 0 ? setting : setting.substring(0, index);
    if (names(properties).contains(name)) {
      return new SettingException(prefix + "." + kebab(setting), e.value(), e.rule(), e);
    }
    return new IllegalArgumentException(prefix + ": " + e.getMessage(), e);
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
