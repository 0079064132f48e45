package io.thriftnio.core.util.internal;

import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The route from the library's internal client code to what {@code ClientCallContext} keeps out of
 * its API: the reply's headers, set before the interceptors' {@code afterCall} runs. The context
 * class installs the setter when it is initialized, so it is there before any context exists. Not
 * an API.
 */
public final class ContextAccess {
  private static volatile BiConsumer<Object, Map<String, String>> responseHeaders;

  private ContextAccess() {}

  /** Installed once by the context class. */
  public static void install(BiConsumer<Object, Map<String, String>> setter) {
    responseHeaders = setter;
  }

  /**
   * Records the reply's headers on {@code context}, a {@code ClientCallContext}.
   *
   * @param context the call's context
   * @param headers the reply's headers, read-only
   */
  public static void responseHeaders(Object context, Map<String, String> headers) {
    responseHeaders.accept(context, headers);
  }
}
