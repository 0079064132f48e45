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

/**
 * Runs a stock {@link TServerEventHandler}, written for libthrift's own servers ({@code
 * TThreadPoolServer}, {@code TNonblockingServer} ...), unchanged on a thrift-nio server:
 *
 * <pre>{@code
 * ThriftServer server = NettyThriftServer.builder()
 *     .processor(processor)
 *     .connectionListener(TServerEventHandlers.adapt(new MyEventHandler()))
 *     .bind(address)
 *     .build()
 *     .start();
 * }</pre>
 *
 * <p>What the handler sees, as with the stock servers:
 *
 * <ul>
 *   <li>{@code preServe()}: once, when the server starts, before any connection;
 *   <li>{@code createContext(in, out)}: when a connection opens (for TLS, after its handshake), on
 *       its IO thread; the context it returns belongs to that connection, and is given the peer's
 *       address ({@code ServerContext.setRemoteAddress}) as the stock servers do;
 *   <li>{@code processContext(context, inTransport, outTransport)}: before each call of the
 *       connection, on the thread that runs the call (a worker for {@code WORKER}; for an
 *       asynchronous processor, the thread that starts it), so a thread-local it sets is seen by
 *       the handler's method; pipelined calls of one connection may run at once on {@code WORKER};
 *   <li>{@code deleteContext(context, in, out)}: once the connection has closed, for any reason,
 *       including the server's close, which returns after it.
 * </ul>
 *
 * <p>The transports: the protocols of {@code createContext} and {@code deleteContext} (of the
 * server's protocol factories) and both transports of {@code processContext} are over one {@link
 * ConnectionTransport} per connection, which carries the connection's addresses and TLS peer
 * ({@link ConnectionTransport#connection()}) but not its bytes: the server reads and writes those
 * itself. Code that casts them to {@code TSocket} must use {@code ConnectionTransport} instead.
 *
 * <p>A method that throws is logged at WARN and the connection goes on; if {@code createContext}
 * throws, that connection gets no {@code processContext} or {@code deleteContext}. Use one adapter
 * per server.
 */
public final class TServerEventHandlers {

  private TServerEventHandlers() {}

  /**
   * A connection listener that runs {@code handler} as the class documentation says.
   *
   * @param handler the stock event handler
   * @return a listener for {@link ServerBuilder#connectionListener(ConnectionListener)}
   */
  public static ConnectionListener adapt(TServerEventHandler handler) {
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
