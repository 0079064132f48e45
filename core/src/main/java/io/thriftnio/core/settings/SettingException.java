package io.thriftnio.core.settings;

import java.util.Objects;

/**
 * A builder's setting refused at {@code build()} (or by its setter): its name, the value as shown
 * and the rule it breaks, with the message {@code name: value (expected: rule)}, e.g. {@code
 * maxFrameSize: -1 (expected: > 0)}.
 *
 * <p>Every setting check of the library's builders throws this type, both for one value out of
 * range and for a setting the rest of the configuration would ignore or contradict (e.g. {@code
 * httpPath: '/rpc' (expected: unset; ignored with wireKinds [FRAMED] without HTTP)}): either way
 * one named setting has to change. Code that maps settings to its own names (such as a
 * configuration file's keys) reads {@link #setting()} rather than the message text, whose wording
 * may change.
 */
public final class SettingException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String setting;
  private final String value;
  private final String rule;

  /**
   * @param setting the builder's setting name as its method is spelled, e.g. {@code maxFrameSize};
   *     an element of a list setting carries its index, e.g. {@code interceptors[2]}
   * @param value the value as the message shows it ({@link String#valueOf(Object)}; a text value
   *     may come quoted)
   * @param rule what the setting must be instead, e.g. {@code > 0}
   */
  public SettingException(String setting, Object value, String rule) {
    this(setting, value, rule, null);
  }

  /**
   * As {@link #SettingException(String, Object, String)}, with the failure that showed the value is
   * wrong.
   */
  public SettingException(String setting, Object value, String rule, Throwable cause) {
    super(
        Objects.requireNonNull(setting, "setting")
            + ": "
            + value
            + " (expected: "
            + Objects.requireNonNull(rule, "rule")
            + ")",
        cause);
    this.setting = setting;
    this.value = String.valueOf(value);
    this.rule = rule;
  }

  /** The builder's setting name, e.g. {@code maxFrameSize} or {@code interceptors[2]}. */
  public String setting() {
    return setting;
  }

  /** The refused value as the message shows it, e.g. {@code -1} or {@code '/rpc'}. */
  public String value() {
    return value;
  }

  /** The rule the value breaks, as the message's {@code expected:} part, e.g. {@code > 0}. */
  public String rule() {
    return rule;
  }
}
