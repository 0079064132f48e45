package io.thriftnio.core.internal.server;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A connection without a socket: counts drains and closes; closes itself on a drain when it has no
 * calls pending, as a real adapter does, and tells its registry.
 */
final class FakeHandle implements ConnectionHandle {
  final AtomicInteger drains = new AtomicInteger();
  final AtomicInteger closes = new AtomicInteger();
  volatile int pending;
  volatile Runnable onClose = () -> {};

  @Override
  public void startDrain() {
    drains.incrementAndGet();
    if (pending == 0) {
      closeNow();
    }
  }

  @Override
  public int pendingCalls() {
    return pending;
  }

  @Override
  public void closeNow() {
    if (closes.incrementAndGet() == 1) {
      onClose.run();
    }
  }

  /** Registers {@code handle} in {@code registry}, closing into it. */
  static RegisteredConnection<FakeHandle> admit(
      ConnectionRegistry<FakeHandle> registry, FakeHandle handle) {
    RegisteredConnection<FakeHandle> c = registry.admit(handle, null, null, System.nanoTime());
    if (c != null) {
      handle.onClose = () -> registry.closed(c);
    }
    return c;
  }
}
