package io.thriftnio.core;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.server.ServerContext;
import org.apache.thrift.server.TServerEventHandler;
import org.apache.thrift.transport.TTransportException;

/** The adapter behind {@link ConnectionListener#adapt}: what it does is documented there. */
final class TServerEventHandlers {

  private TServerEventHandlers() {}

  static ConnectionListener adapt(TServerEventHandler handler) {
    return new Adapter(Objects.requireNonNull(handler, "handler"));
  }

  /** One connection's context and the transport and protocols it was created with. */
  private static final class Opened {
    final ConnectionTransport transport;
    final TProtocol in;
    final TProtocol out;
    final ServerContext context;

    Opened(ConnectionTransport transport, TProtocol in, TProtocol out, ServerContext context) {
      this.transport = transport;
      this.in = in;
      this.out = out;
      this.context = context;
    }
  }

  private static final class Adapter implements ConnectionListener {
    private final TServerEventHandler handler;
    // Keyed by identity: the server hands the same ConnectionInfo to every event of a connection.
    private final Map<ConnectionInfo, Opened> open = new ConcurrentHashMap<>();
    private volatile TProtocolFactory inputProtocol = new TBinaryProtocol.Factory();
    private volatile TProtocolFactory outputProtocol = new TBinaryProtocol.Factory();

    Adapter(TServerEventHandler handler) {
      this.handler = handler;
    }

    @Override
    public void onServerStart(ServerConfig config) {
      inputProtocol = config.inputProtocolFactory();
      outputProtocol = config.outputProtocolFactory();
      handler.preServe();
    }

    @Override
    public void onOpen(ConnectionInfo connection) {
      ConnectionTransport transport;
      try {
        transport = new ConnectionTransport(connection);
      } catch (TTransportException e) {
        // TEndpointTransport declares it for a configuration over its limits; ours is the default.
        throw new IllegalStateException("event transport of " + connection, e);
      }
      TProtocol in = inputProtocol.getProtocol(transport);
      TProtocol out = outputProtocol.getProtocol(transport);
      ServerContext context = handler.createContext(in, out);
      if (context != null) {
        context.setRemoteAddress(connection.remoteAddress()); // as the stock servers do
      }
      open.put(connection, new Opened(transport, in, out, context));
    }

    @Override
    public void beforeCall(ConnectionInfo connection) {
      Opened c = open.get(connection);
      if (c != null) {
        handler.processContext(c.context, c.transport, c.transport);
      }
    }

    @Override
    public void onClose(ConnectionInfo connection, CloseCause cause) {
      Opened c = open.remove(connection);
      if (c != null) {
        c.transport.closed();
        handler.deleteContext(c.context, c.in, c.out);
      }
    }

    @Override
    public String toString() {
      return "TServerEventHandlers.adapt(" + handler + ")";
    }
  }
}
