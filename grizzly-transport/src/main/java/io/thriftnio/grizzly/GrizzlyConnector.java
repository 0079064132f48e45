package io.thriftnio.grizzly;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.internal.JdkTls;
import io.thriftnio.core.internal.client.ClientErrors;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.core.util.internal.Framing;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import org.apache.thrift.transport.TTransportException;
import org.glassfish.grizzly.CompletionHandler;
import org.glassfish.grizzly.Connection;
import org.glassfish.grizzly.filterchain.FilterChain;
import org.glassfish.grizzly.filterchain.FilterChainBuilder;
import org.glassfish.grizzly.filterchain.TransportFilter;
import org.glassfish.grizzly.nio.transport.TCPNIOConnectorHandler;
import org.glassfish.grizzly.nio.transport.TCPNIOTransport;
import org.glassfish.grizzly.ssl.SSLFilter;

/**
 * Connects client connections of one {@link TCPNIOTransport}, each with the filter chain its
 * options call for: {@code TransportFilter -> [SSLFilter] -> ThriftFrameFilter(maxFrameSize) ->
 * ThriftClientFilter}, the frame filter reading each connection's replies with the codec its client
 * attaches. Chains are made once per frame limit and TLS settings, and shared.
 */
final class GrizzlyConnector {

  /** Bytes a connection may queue for the socket beyond the frame being written. */
  static final int WRITE_HIGH_WATER_MARK = 64 * 1024;

  private final TCPNIOTransport transport;
  private final Map<Key, Chain> chains = new ConcurrentHashMap<>();

  GrizzlyConnector(TCPNIOTransport transport) {
    this.transport = transport;
  }

  /**
   * Connects within the connect timeout and, with TLS, completes the handshake; a connection that
   * completes after the wait gave up is closed.
   */
  @SuppressWarnings("rawtypes") // Grizzly's connect callback is declared on the raw type
  Connection<?> connect(InetSocketAddress address, ClientOptions options)
      throws TTransportException {
    Chain chain = chains.computeIfAbsent(new Key(options), Chain::new);
    long timeoutMillis = Math.max(1, options.connectTimeout().toMillis());
    CompletableFuture<Connection<?>> result = new CompletableFuture<>();
    AtomicBoolean abandoned = new AtomicBoolean();
    try {
      TCPNIOConnectorHandler.builder(transport)
          .processor(chain.filters)
          .build()
          .connect(
              address,
              new CompletionHandler<Connection>() {
                @Override
                public void completed(Connection connection) {
                  if (abandoned.get() || !result.complete(connection)) {
                    connection.closeSilently();
                  }
                }

                @Override
                public void failed(Throwable t) {
                  result.completeExceptionally(t);
                }

                @Override
                public void cancelled() {
                  result.cancel(false);
                }

                @Override
                public void updated(Connection connection) {}
              });
    } catch (RuntimeException e) { // the transport was stopped
      throw ClientErrors.connectFailed(address, e);
    }
    Connection<?> connection;
    try {
      connection = result.get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      abandon(result, abandoned);
      throw ClientErrors.connectTimedOut(address, timeoutMillis);
    } catch (InterruptedException e) {
      abandon(result, abandoned);
      Thread.currentThread().interrupt();
      throw ClientErrors.connectInterrupted(address, e);
    } catch (ExecutionException e) {
      throw ClientErrors.connectFailed(address, e.getCause());
    }
    // Bounded: a channel stops writing at the high water mark, so this is never reached by a
    // frame of at most maxFrameSize; it replaces Grizzly's unbounded default for our clients.
    connection.setMaxAsyncWriteQueueSize(
        (int)
            Math.min(
                Integer.MAX_VALUE,
                (long) WRITE_HIGH_WATER_MARK + requestOverhead(options) + options.maxFrameSize()));
    return chain.ssl != null ? handshake(connection, address, chain) : connection;
  }

  /** The most bytes a request adds to its message: the length prefix, or an HTTP head. */
  private static int requestOverhead(ClientOptions options) {
    return options.wireKind() == WireKind.HTTP
        ? 1024 + options.httpPath().length()
        : Framing.HEADER_SIZE;
  }

  /** Runs the TLS handshake of a new connection within the handshake timeout, or closes it. */
  private static Connection<?> handshake(
      Connection<?> connection, InetSocketAddress address, Chain chain) throws TTransportException {
    CompletableFuture<SSLEngine> done = new CompletableFuture<>();
    long timeoutMillis = chain.tls.handshakeTimeout().toMillis();
    try {
      chain.ssl.handshake(
          connection,
          new CompletionHandler<SSLEngine>() {
            @Override
            public void completed(SSLEngine engine) {
              done.complete(engine);
            }

            @Override
            public void failed(Throwable t) {
              done.completeExceptionally(t);
            }

            @Override
            public void cancelled() {
              done.cancel(false);
            }

            @Override
            public void updated(SSLEngine engine) {}
          },
          null,
          TlsFilters.clientEngines(chain.context, chain.tls, address));
      done.get(timeoutMillis, TimeUnit.MILLISECONDS);
      return connection;
    } catch (TimeoutException e) {
      connection.closeSilently();
      throw ClientErrors.handshakeTimedOut(address, timeoutMillis);
    } catch (InterruptedException e) {
      connection.closeSilently();
      Thread.currentThread().interrupt();
      throw ClientErrors.connectInterrupted(address, e);
    } catch (IOException | ExecutionException | RuntimeException e) {
      connection.closeSilently();
      throw ClientErrors.handshakeFailed(
          address, e instanceof ExecutionException ? e.getCause() : e);
    }
  }

  private static void abandon(CompletableFuture<Connection<?>> result, AtomicBoolean abandoned) {
    abandoned.set(true);
    if (!result.cancel(false)) {
      Connection<?> late = result.getNow(null);
      if (late != null) {
        late.closeSilently();
      }
    }
  }

  /** A chain's identity: the frame limit and the TLS settings instance. */
  private static final class Key {
    final int maxFrameSize;
    final ClientTls tls;

    Key(ClientOptions options) {
      this.maxFrameSize = options.maxFrameSize();
      this.tls = options.tls().orElse(null);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key && ((Key) o).maxFrameSize == maxFrameSize && ((Key) o).tls == tls;
    }

    @Override
    public int hashCode() {
      return 31 * maxFrameSize + System.identityHashCode(tls);
    }
  }

  /** One filter chain, with its TLS filter and context when it speaks TLS. */
  private static final class Chain {
    final FilterChain filters;
    final ClientTls tls;
    final SSLContext context;
    final SSLFilter ssl;

    Chain(Key key) {
      this.tls = key.tls;
      this.context = tls != null ? JdkTls.clientContext(tls, "Grizzly") : null;
      this.ssl = context != null ? TlsFilters.client(context) : null;
      FilterChainBuilder b = FilterChainBuilder.stateless().add(new TransportFilter());
      if (ssl != null) {
        b.add(ssl);
      }
      // The frame filter reads every transport's replies, with the codec each connection's
      // client attaches (framed, unframed, HTTP).
      this.filters =
          b.add(new ThriftFrameFilter(key.maxFrameSize)).add(new ThriftClientFilter()).build();
    }
  }

  @Override
  public String toString() {
    return "GrizzlyConnector{chains=" + chains.size() + ", " + Objects.toString(transport) + "}";
  }
}
