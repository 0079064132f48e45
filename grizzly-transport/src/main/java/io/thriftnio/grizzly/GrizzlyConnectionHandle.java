package io.thriftnio.grizzly;

import io.thriftnio.core.internal.server.ConnectionHandle;
import org.glassfish.grizzly.Connection;

/** One connection of a {@link GrizzlyThriftServer} as its connection registry sees it. */
final class GrizzlyConnectionHandle implements ConnectionHandle {

  private final Connection<?> connection;
  private final ThriftServerFilter serverFilter;

  GrizzlyConnectionHandle(Connection<?> connection, ThriftServerFilter serverFilter) {
    this.connection = connection;
    this.serverFilter = serverFilter;
  }

  Connection<?> connection() {
    return connection;
  }

  @Override
  public void startDrain() {
    serverFilter.drain(connection);
  }

  @Override
  public int pendingCalls() {
    GrizzlyServerConnection served = ThriftServerFilter.peek(connection);
    return served == null ? 0 : served.calls.pendingCalls();
  }

  @Override
  public void closeNow() {
    // Not closeSilently(): a graceful close waits for the write queue, and a peer that stopped
    // reading never drains it.
    connection.terminateSilently();
  }

  @Override
  public void closeAfterWrites() {
    connection.closeSilently(); // graceful: after the write queue, which an idle peer drains
  }
}
