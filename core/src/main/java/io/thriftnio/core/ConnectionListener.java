package io.thriftnio.core;

/**
 * Told when a server's connections open and close, and why they close. Registered with {@link
 * ServerBuilder#connectionListener(ConnectionListener)}; several listeners run in the order they
 * were added. A stock {@code TServerEventHandler} runs through {@link
 * #adapt(org.apache.thrift.server.TServerEventHandler)}.
 *
 * <pre>
 *  accept --(TLS handshake)--&gt; onOpen --&gt; beforeCall, beforeCall ... --&gt; onClose(cause)
 *     |  over maxConnections, server closing, TLS failed, peer left during the handshake
 *     +--&gt; onRefused(cause)                                   (no onOpen, no onClose)
 * </pre>
 *
 * <p>Guarantees: for one connection, {@link #onOpen} returns before {@link #onClose} is called, and
 * each is called at most once; {@code onClose} is called for every connection {@code onOpen} was
 * called for, including those the server's {@code close()} ends (it returns after their {@code
 * onClose}). A connection never opened gets {@link #onRefused} instead.
 *
 * <p>Threads: {@code onOpen} runs on the connection's IO thread (at accept, or where its TLS
 * handshake completed); {@code onClose} on the IO thread that saw the close, or the thread that
 * closed the connection (a timeout sweep, the server's close); {@code beforeCall} on the thread
 * that runs the call (the IO thread for {@code SAME_THREAD} and {@code LEADER_FOLLOWER}, a worker
 * for {@code WORKER}). None is called while the server holds a lock. A listener must be thread-safe
 * and should be quick: a slow {@code onOpen} or {@code onClose} holds up the IO thread's other
 * connections.
 *
 * <p>A listener that throws is logged at WARN (the 1st, 2nd, 4th, 8th ... failure of the server,
 * with the running count); the connection, the call and the other listeners go on as if it had
 * returned.
 */
public interface ConnectionListener {

  /**
   * A connection is ready to serve: accepted and, with TLS, its handshake complete (so {@code
   * connection} carries the peer's certificate).
   */
  void onOpen(ConnectionInfo connection);

  /** A connection {@link #onOpen opened} has closed, for {@code cause}. */
  void onClose(ConnectionInfo connection, CloseCause cause);

  /**
   * A call is about to run on {@code connection}, on the thread that runs it, before the processor
   * reads its request. Default: nothing.
   */
  default void beforeCall(ConnectionInfo connection) {}

  /**
   * An accepted connection closed without opening: {@link CloseCause#LIMIT}, {@link
   * CloseCause#SERVER_CLOSING} (accepted while the server closed), {@link CloseCause#TLS_FAILURE},
   * or {@link CloseCause#PEER_CLOSED} (the peer left during the TLS handshake, e.g. a TCP health
   * check). {@code connection} carries no TLS identity. Default: nothing.
   */
  default void onRefused(ConnectionInfo connection, CloseCause cause) {}

  /**
   * The server is starting, before it binds its listening socket and so before any connection
   * opens. Called once per {@code start()} that binds; if the bind fails, no connection follows.
   * Default: nothing.
   *
   * @param config the server's settings (its protocols, say)
   */
  default void onServerStart(ServerConfig config) {}

  /**
   * A listener that runs a stock {@link org.apache.thrift.server.TServerEventHandler}, written for
   * libthrift's own servers ({@code TThreadPoolServer}, {@code TNonblockingServer} ...), unchanged
   * on a thrift-nio server:
   *
   * <pre>{@code
   * ThriftServer server = NettyThriftServer.builder()
   *     .processor(processor)
   *     .connectionListener(ConnectionListener.adapt(new MyEventHandler()))
   *     .bind(address)
   *     .build()
   *     .start();
   * }</pre>
   *
   * <p>What the handler sees, as with the stock servers:
   *
   * <ul>
   *   <li>{@code preServe()}: once, when the server starts, before any connection;
   *   <li>{@code createContext(in, out)}: when a connection opens (for TLS, after its handshake),
   *       on its IO thread; the context it returns belongs to that connection, and is given the
   *       peer's address ({@code ServerContext.setRemoteAddress}) as the stock servers do;
   *   <li>{@code processContext(context, inTransport, outTransport)}: before each call of the
   *       connection, on the thread that runs the call (a worker for {@code WORKER}; for an
   *       asynchronous processor, the thread that starts it), so a thread-local it sets is seen by
   *       the handler's method; pipelined calls of one connection may run at once on {@code
   *       WORKER};
   *   <li>{@code deleteContext(context, in, out)}: once the connection has closed, for any reason,
   *       including the server's close, which returns after it.
   * </ul>
   *
   * <p>The transports: the protocols of {@code createContext} and {@code deleteContext} (of the
   * server's protocol factories) and both transports of {@code processContext} are over one
   * transport per connection, a libthrift {@link org.apache.thrift.transport.SocketAddressProvider}
   * that gives the connection's addresses but not its bytes: the server reads and writes those
   * itself. Code that casts them to {@code TSocket} must use {@code SocketAddressProvider} instead;
   * a listener of this interface gets the rest of the connection ({@link ConnectionInfo}: its id,
   * TLS peer).
   *
   * <p>A method that throws is logged at WARN and the connection goes on; if {@code createContext}
   * throws, that connection gets no {@code processContext} or {@code deleteContext}. Use one
   * adapter per server.
   *
   * @param handler the stock event handler
   * @return a listener for {@link ServerBuilder#connectionListener(ConnectionListener)}
   */
  static ConnectionListener adapt(org.apache.thrift.server.TServerEventHandler handler) {
    return TServerEventHandlers.adapt(handler);
  }
}
