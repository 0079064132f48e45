package io.thriftnio.pool.internal;

import java.net.InetSocketAddress;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.thrift.TServiceClient;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;

/** One pooled synchronous connection: its transport and the generated client over it. */
public final class SyncConnection<C extends TServiceClient> {
  public final InetSocketAddress endpoint;
  public final TTransport transport;
  public final C client;

  public SyncConnection(InetSocketAddress endpoint, TTransport transport, C client) {
    this.endpoint = endpoint;
    this.transport = transport;
    this.client = client;
  }

  /** Cheap check after a call: open, and the last reply read to its end. */
  public boolean isClean() {
    return transport.isOpen() && !SocketTransports.hasUnreadBytes(transport);
  }

  /** Full check of an idle connection, with the user's validator; never throws. */
  public boolean validate(Predicate<? super C> validator) {
    try {
      return isClean()
          && SocketTransports.peerSilent(transport)
          && (validator == null || validator.test(client));
    } catch (RuntimeException e) {
      return false;
    }
  }

  public void close() {
    transport.close();
  }

  /** Opens one transport to an endpoint; any exception is a connect failure. */
  @FunctionalInterface
  public interface TransportOpener {
    TTransport open(InetSocketAddress endpoint) throws Exception;
  }

  /** How a sync pool opens, checks and closes its connections. */
  public static <C extends TServiceClient> EndpointPool.Connections<SyncConnection<C>> connections(
      TransportOpener opener,
      Function<TProtocol, C> clientFactory,
      TProtocolFactory protocolFactory,
      Predicate<? super C> validator) {
    return new EndpointPool.Connections<>() {
      @Override
      public SyncConnection<C> open(InetSocketAddress endpoint) throws Exception {
        TTransport transport = opener.open(endpoint);
        try {
          if (!transport.isOpen()) {
            throw new TTransportException(
                TTransportException.NOT_OPEN,
                "the transport opened to " + Names.endpoint(endpoint) + " is not open");
          }
          C client = clientFactory.apply(protocolFactory.getProtocol(transport));
          return new SyncConnection<>(endpoint, transport, client);
        } catch (Exception | Error e) {
          transport.close();
          throw e;
        }
      }

      @Override
      public boolean validate(SyncConnection<C> connection) {
        return connection.validate(validator);
      }

      @Override
      public void close(SyncConnection<C> connection) {
        connection.close();
      }
    };
  }
}
