package io.thriftnio.grizzly;

import io.thriftnio.core.internal.server.ConnectionHandle;
import io.thriftnio.core.internal.server.ConnectionRegistry;
import io.thriftnio.core.internal.server.RegisteredConnection;
import io.thriftnio.grizzly.internal.CloseListeners;
import java.io.IOException;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.ConnectionProbe;
import org.glassfish.grizzly.Grizzly;
import org.glassfish.grizzly.attributes.Attribute;
import org.glassfish.grizzly.filterchain.BaseFilter;
import org.glassfish.grizzly.filterchain.FilterChainContext;
import org.glassfish.grizzly.filterchain.NextAction;

/**
 * First filter after the transport in a server's chain: hands every accepted connection to the
 * server's {@link ConnectionRegistry} ({@code maxConnections}, counting, the set drained on close)
 * and closes those it refuses.
 */
final class ConnectionGuardFilter extends BaseFilter {

  private static final Attribute<RegisteredConnection<ConnectionHandle>> REGISTERED =
      Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(
          ConnectionGuardFilter.class.getName() + ".registered");

  private static final Attribute<ConnectionRegistry<ConnectionHandle>.Arrival> ARRIVAL =
      Grizzly.DEFAULT_ATTRIBUTE_BUILDER.createAttribute(
          ConnectionGuardFilter.class.getName() + ".arrival");

  private final ConnectionRegistry<ConnectionHandle> registry;
  private final ThriftServerFilter serverFilter;

  /**
   * Tells the registry of each connection the listening {@code server} accepts, at the accept,
   * before Grizzly registers it with a selector and {@link #handleAccept} sees it: a close waits
   * for it (issue 38), where it used to release the transport with the connection still queued for
   * its selector, never admitted, never closed.
   */
  void watchAccepts(Connection<?> server) {
    server
        .getMonitoringConfig()
        .addProbes(
            new ConnectionProbe.Adapter() {
              @Override
              @SuppressWarnings("rawtypes") // Grizzly declares its probe with raw types
              public void onAcceptEvent(Connection serverConnection, Connection clientConnection) {
                ConnectionRegistry<ConnectionHandle>.Arrival arrival = registry.arriving();
                ARRIVAL.set(clientConnection, arrival);
                // A connection whose selector registration fails closes without handleAccept.
                CloseListeners.onClose(clientConnection, arrival::arrived);
              }
            });
  }

  ConnectionGuardFilter(
      ConnectionRegistry<ConnectionHandle> registry, ThriftServerFilter serverFilter) {
    this.registry = registry;
    this.serverFilter = serverFilter;
  }

  @Override
  public NextAction handleAccept(FilterChainContext ctx) throws IOException {
    Connection<?> connection = ctx.getConnection();
    RegisteredConnection<ConnectionHandle> registered =
        registry.admit(
            new GrizzlyConnectionHandle(connection, serverFilter),
            Addresses.peer(connection),
            Addresses.local(connection),
            System.nanoTime());
    ConnectionRegistry<ConnectionHandle>.Arrival arrival = ARRIVAL.remove(connection);
    if (registered == null) {
      connection.closeSilently(); // over maxConnections (counted and logged), or closing
      arrived(arrival);
      return ctx.getStopAction();
    }
    REGISTERED.set(connection, registered);
    CloseListeners.onClose(connection, () -> registry.closed(registered));
    serverFilter.connection(connection); // its state from the start: the timeout sweep reads it
    registry.settle(registered); // close() may have begun after the admission
    arrived(arrival);
    return ctx.getInvokeAction();
  }

  private static void arrived(ConnectionRegistry<ConnectionHandle>.Arrival arrival) {
    if (arrival != null) { // null: accepted before the probe was on the listening connection
      arrival.arrived();
    }
  }

  /** The registration of {@code connection}, or {@code null} if it was not admitted. */
  static RegisteredConnection<ConnectionHandle> registered(Connection<?> connection) {
    return REGISTERED.get(connection);
  }
}
