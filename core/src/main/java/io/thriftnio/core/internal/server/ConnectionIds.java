package io.thriftnio.core.internal.server;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Connection numbers, unique in the JVM and increasing in the order connections are opened: one
 * numbering for {@code ConnectionInfo.id()} and {@code ServerCallContext.connectionId()}, so a
 * connection listener and an interceptor name the same connection with the same number, also across
 * servers (a handler in a user's own pipeline has no registry and still gets one).
 */
final class ConnectionIds {
  private static final AtomicLong LAST = new AtomicLong();

  private ConnectionIds() {}

  static long next() {
    return LAST.incrementAndGet();
  }
}
