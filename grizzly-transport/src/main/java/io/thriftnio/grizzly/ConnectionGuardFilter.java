package io.thriftnio.grizzly;

import io.thriftnio.core.internal.server.ConnectionHandle;
import io.thriftnio.core.internal.server.ConnectionRegistry;
import io.thriftnio.core.internal.server.RegisteredConnection;
import io.thriftnio.grizzly.internal.CloseListeners;
import java.io.IOException;
import java.net.SocketAddress;
import org.glassfish.grizzly.Connection;
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

  private final ConnectionRegistry<ConnectionHandle> registry;
  private final ThriftServerFilter serverFilter;

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
            address(connection.getPeerAddress()),
            address(connection.getLocalAddress()),
            System.nanoTime());
    if (registered == null) {
      connection.closeSilently(); // over maxConnections (counted and logged), or closing
      return ctx.getStopAction();
    }
    REGISTERED.set(connection, registered);
    CloseListeners.onClose(connection, () -> registry.closed(registered));
    serverFilter.connection(connection); // its state from the start: the timeout sweep reads it
    registry.settle(registered); // close() may have begun after the admission
    return ctx.getInvokeAction();
  }

  /** The registration of {@code connection}, or {@code null} if it was not admitted. */
  static RegisteredConnection<ConnectionHandle> registered(Connection<?> connection) {
    return REGISTERED.get(connection);
  }

  private static SocketAddress address(Object address) {
    return address instanceof SocketAddress ? (SocketAddress) address : null;
  }
}
