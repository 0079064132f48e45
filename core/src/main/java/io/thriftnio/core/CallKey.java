package io.thriftnio.core;

import java.util.Objects;

/**
 * The name of a typed attribute of a call: {@link ServerCallContext#attribute} and {@link
 * ClientCallContext#attribute}, so that interceptors of one call pass values to each other (and, on
 * a server, to the handler). Keys compare by identity: keep one instance in a constant.
 *
 * <pre>{@code
 * static final CallKey<String> USER = CallKey.of("user");
 * }</pre>
 *
 * @param <T> the type of the attribute's value
 */
public final class CallKey<T> {
  private final String name;

  private CallKey(String name) {
    this.name = Objects.requireNonNull(name, "name");
  }

  /**
   * A new key, distinct from every other key, even of the same name.
   *
   * @param name for {@link #toString()} only
   * @param <T> the type of the attribute's value
   * @return the key
   */
  public static <T> CallKey<T> of(String name) {
    return new CallKey<>(name);
  }

  /** The name given to {@link #of}. */
  @Override
  public String toString() {
    return name;
  }
}
