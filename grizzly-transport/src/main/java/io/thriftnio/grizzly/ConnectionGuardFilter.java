package io.thriftnio.grizzly;

import io.thriftnio.core.internal.ServerCounters;
import io.thriftnio.grizzly.internal.CloseListeners;
import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * First filter after the transport in a server's chain: enforces {@code maxConnections} (accept,
 * then close at once, counted), counts connections, and keeps the set of open connections for
 * timeouts and graceful close.
 */
final class ConnectionGuardFilter extends BaseFilter {

  private static final Logger log = LoggerFactory.getLogger(ConnectionGuardFilter.class);

  private final int maxConnections;
  private final ServerCounters counters;
  private final Map<Connection<?>, Long> open = new ConcurrentHashMap<>();
  private final AtomicInteger openCount = new AtomicInteger();
  private final Object changed = new Object();
  private volatile boolean closing;

  ConnectionGuardFilter(int maxConnections, ServerCounters counters) {
    this.maxConnections = maxConnections;
    this.counters = counters;
  }

  @Override
  public NextAction handleAccept(FilterChainContext ctx) throws IOException {
    Connection<?> connection = ctx.getConnection();
    if (closing) {
      connection.closeSilently();
      return ctx.getStopAction();
    }
    if (openCount.incrementAndGet() > maxConnections) {
      openCount.decrementAndGet();
      counters.rejectedConnections.increment();
      long rejected = counters.rejectedConnections.sum();
      if ((rejected & (rejected - 1)) == 0) { // log the 1st, 2nd, 4th, 8th ... to bound the noise
        log.warn(
            "Refusing connection from {}: maxConnections {} reached ({} rejected so far)",
            connection.getPeerAddress(),
            maxConnections,
            rejected);
      }
      connection.closeSilently();
      return ctx.getStopAction();
    }
    counters.acceptedConnections.increment();
    counters.openConnections.increment();
    open.put(connection, System.nanoTime());
    CloseListeners.onClose(
        connection,
        () -> {
          if (open.remove(connection) != null) {
            openCount.decrementAndGet();
            counters.openConnections.decrement();
            synchronized (changed) {
              changed.notifyAll();
            }
          }
        });
    return ctx.getInvokeAction();
  }

  /** Open connections, a live view. */
  Set<Connection<?>> connections() {
    return open.keySet();
  }

  /** When {@code connection} was accepted ({@link System#nanoTime()}), or 0 if not open. */
  long acceptedAt(Connection<?> connection) {
    Long at = open.get(connection);
    return at == null ? 0 : at;
  }

  /** Closes connections accepted from now on. */
  void refuseNew() {
    closing = true;
  }

  /**
   * Waits until every connection is closed, or {@code deadlineNanos} ({@link System#nanoTime()})
   * passes.
   *
   * @return whether all closed
   */
  boolean awaitAllClosed(long deadlineNanos) throws InterruptedException {
    synchronized (changed) {
      while (!open.isEmpty()) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        changed.wait(Math.max(1, left / 1_000_000), 0);
      }
      return true;
    }
  }
}
