package io.thriftnio.opentelemetry;

import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;

/** Makes a context current for a part of a call, undone when the library closes the scope. */
final class ContextScopes {

  private ContextScopes() {}

  /**
   * The context made current on this thread; the returned scope owns the OpenTelemetry {@link
   * Scope}, and the library closes it on this thread when that part of the call ends (the contract
   * of the interceptors' {@code attach}), so no try-with-resources can hold it here.
   */
  @SuppressWarnings(
      "MustBeClosedChecker") // ownership passes to the Runnable, closed by the library
  static Runnable makeCurrent(Context context) {
    Scope scope = context.makeCurrent();
    return scope::close;
  }
}
