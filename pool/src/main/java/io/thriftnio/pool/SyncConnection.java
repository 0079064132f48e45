package io.thriftnio.pool;

import io.thriftnio.core.internal.client.ClientInterception;
import io.thriftnio.core.internal.client.HeaderTransport;
import io.thriftnio.core.internal.client.InterceptedConnection;
import io.thriftnio.core.util.internal.CloseAware;
import io.thriftnio.core.util.internal.ReplyChecks;
import java.net.InetSocketAddress;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.thrift.TServiceClient;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.scheme.StandardScheme;
import org.apache.thrift.transport.TMemoryBuffer;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;

/** One pooled synchronous connection: its transport and the generated client over it. */
final class SyncConnection<C extends TServiceClient> {
  public final InetSocketAddress endpoint;
  public final TTransport transport;
  public final C client;

  /** Runs the interceptors around the client's calls; {@code null} without interceptors. */
  private final InterceptedConnection interception;

  /** Checks each reply's header; {@code null} for a protocol no decorator can stand in for. */
  private final ReplyChecks.CheckingProtocol replies;

  public SyncConnection(InetSocketAddress endpoint, TTransport transport, C client) {
    this(endpoint, transport, client, null, null);
  }

  private SyncConnection(
      InetSocketAddress endpoint,
      TTransport transport,
      C client,
      InterceptedConnection interception,
      ReplyChecks.CheckingProtocol replies) {
    this.endpoint = endpoint;
    this.transport = transport;
    this.client = client;
    this.interception = interception;
    this.replies = replies;
  }

  /**
   * What a call on this connection threw, restated to name the endpoint and the method when it is
   * libthrift's bare decode error ({@link ReplyChecks#unreadable}).
   */
  public Throwable explain(Throwable failure) {
    return ReplyChecks.unreadable(failure, replies == null ? null : replies.method(), endpoint);
  }

  /**
   * The client is done for now, having thrown {@code failure} ({@code null} for none): ends its
   * call still open, if any. Whether the connection may be kept follows.
   *
   * @return whether {@code failure} is an interceptor's refusal, which wrote nothing
   */
  public boolean settleCall(Throwable failure) {
    if (interception == null) {
      return false;
    }
    interception.settle(failure);
    return interception.refused(failure);
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

  /** The client's class, from a client over an in-memory buffer. */
  public static Class<?> sampleClientClass(
      Function<TProtocol, ? extends TServiceClient> factory, TProtocolFactory protocolFactory) {
    try {
      return factory.apply(protocolFactory.getProtocol(new TMemoryBuffer(16))).getClass();
    } catch (TTransportException e) {
      throw new IllegalStateException(e); // a memory buffer does not fail to open
    }
  }

  /** How a sync pool opens, checks and closes its connections. */
  public static <C extends TServiceClient> EndpointPool.Connections<SyncConnection<C>> connections(
      TransportOpener opener,
      Function<TProtocol, C> clientFactory,
      TProtocolFactory protocolFactory,
      Predicate<? super C> validator,
      ClientInterception interception,
      boolean argumentHeaders) {
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
          TProtocol protocol = protocolFactory.getProtocol(transport);
          ReplyChecks.CheckingProtocol replies = null;
          if (protocol.getScheme() == StandardScheme.class) {
            // Generated code picks its scheme by the protocol's getScheme(): a tuple protocol
            // cannot be decorated, and keeps the generated client's own seqid check alone.
            replies = new ReplyChecks.CheckingProtocol(protocol, endpoint, null);
            protocol = replies;
          }
          if (interception == null) {
            return new SyncConnection<>(
                endpoint, transport, clientFactory.apply(protocol), null, replies);
          }
          InterceptedConnection calls =
              new InterceptedConnection(
                  interception,
                  endpoint,
                  transport instanceof HeaderTransport ? (HeaderTransport) transport : null,
                  argumentHeaders);
          return new SyncConnection<>(
              endpoint, transport, clientFactory.apply(calls.wrap(protocol)), calls, replies);
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

      @Override
      public void whenClosed(SyncConnection<C> connection, Runnable action) {
        if (connection.transport instanceof CloseAware) {
          ((CloseAware) connection.transport).whenClosed(action);
        }
      }
    };
  }
}
