package io.thriftnio.core;

import java.net.SocketAddress;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.transport.SocketAddressProvider;
import org.apache.thrift.transport.TEndpointTransport;
import org.apache.thrift.transport.TTransportException;

/**
 * The transport a {@link ConnectionListener#adapt adapted} stock {@code TServerEventHandler} is
 * given for one connection: the same object as the input and the output transport of {@code
 * processContext}, and under the protocols of {@code createContext} and {@code deleteContext}. It
 * stands for the connection; it does not carry its bytes, which the server reads and writes itself
 * (pipelined calls of one connection may run at once on a {@code WORKER} server, so no transport of
 * a single call could stand for the connection).
 *
 * <pre>{@code
 * public void processContext(ServerContext ctx, TTransport in, TTransport out) {
 *   SocketAddress peer = ((SocketAddressProvider) in).getRemoteSocketAddress();
 *   MDC.put("peer", String.valueOf(peer));
 * }
 * }</pre>
 *
 * <p>Like libthrift's own socket transports it is a {@link SocketAddressProvider}, so handler code
 * that asks a transport for its peer's address works unchanged. {@link #isOpen()} is true until the
 * connection closes (it is false in {@code deleteContext}); reading or writing throws a {@link
 * TTransportException} that says so; {@link #close()} does not close the connection.
 */
final class ConnectionTransport extends TEndpointTransport implements SocketAddressProvider {

  private final ConnectionInfo connection;
  private volatile boolean open = true;

  ConnectionTransport(ConnectionInfo connection) throws TTransportException {
    super(new TConfiguration());
    this.connection = connection;
  }

  /** The connection this transport stands for: its id, addresses and TLS peer. */
  ConnectionInfo connection() {
    return connection;
  }

  /** The peer's address; {@code null} if unknown. */
  @Override
  public SocketAddress getRemoteSocketAddress() {
    return connection.remoteAddress();
  }

  /** The server's address of the connection; {@code null} if unknown. */
  @Override
  public SocketAddress getLocalSocketAddress() {
    return connection.localAddress();
  }

  /** Whether the connection is still open. */
  @Override
  public boolean isOpen() {
    return open;
  }

  /** Does nothing: the connection was opened by the server. */
  @Override
  public void open() {}

  /** Does nothing: the connection belongs to the server, which closes it. */
  @Override
  public void close() {}

  /**
   * Always fails: a call's bytes are read by the server.
   *
   * @throws TTransportException always, {@code UNKNOWN}, naming the connection
   */
  @Override
  public int read(byte[] buf, int off, int len) throws TTransportException {
    throw new TTransportException(
        TTransportException.UNKNOWN,
        "read from the event transport of "
            + connection
            + " (expected: none; the server reads"
            + " requests itself)");
  }

  /**
   * Always fails: replies are written by the server.
   *
   * @throws TTransportException always, {@code UNKNOWN}, naming the connection
   */
  @Override
  public void write(byte[] buf, int off, int len) throws TTransportException {
    throw new TTransportException(
        TTransportException.UNKNOWN,
        "write to the event transport of "
            + connection
            + " (expected: none; the server writes"
            + " replies itself)");
  }

  void closed() {
    open = false;
  }

  @Override
  public String toString() {
    return "ConnectionTransport{" + connection + '}';
  }
}
