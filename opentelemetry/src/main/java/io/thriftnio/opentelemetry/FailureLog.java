package io.thriftnio.opentelemetry;

import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs a failure of the tracing itself (the OpenTelemetry API, a propagator), which must never fail
 * the call it traces: the first at WARN with its stack trace, later ones at DEBUG, since a broken
 * propagator would otherwise log on every call.
 */
final class FailureLog {

  private static final Logger log = LoggerFactory.getLogger(ThriftTracing.class);

  private final AtomicBoolean warned = new AtomicBoolean();

  /**
   * @param hook the interceptor method that failed, e.g. {@code "server beforeCall"}
   * @param call the call's context, for its method and peer
   */
  void failed(String hook, Object call, RuntimeException failure) {
    if (warned.compareAndSet(false, true)) {
      log.warn(
          "OpenTelemetry tracing failed in {} of {}; the call goes on untraced (later failures of"
              + " this interceptor are logged at DEBUG)",
          hook,
          call,
          failure);
    } else if (log.isDebugEnabled()) {
      log.debug("OpenTelemetry tracing failed in {} of {}", hook, call, failure);
    }
  }
}
