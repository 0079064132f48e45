package io.thriftnio.core.internal.client;

import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.util.internal.Checks;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;

/**
 * What every {@link ClientIo} does the same way: the argument checks, refusing to open once closed,
 * the plain-TCP sync transport ({@link SocketFramedTransport}, on the caller's thread), the HTTP
 * sync transport, plain or over the JDK's TLS ({@link SocketHttpTransport}), and a registry of the
 * connections still open so that {@link #close()} closes them. An IO adapter supplies the TLS sync
 * transport, the channel and the release of its threads ({@link Adapter}). A transport's resources
 * hold one and delegate to it, so that no public class has an internal superclass. Not part of the
 * API.
 */
public final class ClientConnections {

  /** What the IO adapter supplies. */
  public interface Adapter {
    /** Opens a sync transport over TLS; {@code onClose} runs once when it closes. */
    TTransport connectTlsTransport(
        InetSocketAddress address, ClientOptions options, Runnable onClose)
        throws TTransportException;

    /** Connects a channel; {@code onClose} runs once when it closes. */
    ThriftChannel connectChannel(InetSocketAddress address, ClientOptions options, Runnable onClose)
        throws TTransportException;

    /** Stops the threads the resources own, if any; runs once, after every connection closed. */
    void release();
  }

  private final AtomicBoolean closed = new AtomicBoolean();
  private final Set<AutoCloseable> open = ConcurrentHashMap.newKeySet();
  private final Adapter adapter;

  /**
   * @param adapter the IO adapter's part
   */
  public ClientConnections(Adapter adapter) {
    this.adapter = adapter;
  }

  /** {@link ClientIo#openTransport(InetSocketAddress, ClientOptions)}. */
  public TTransport openTransport(InetSocketAddress address, ClientOptions options)
      throws TTransportException {
    checkArguments(address, options);
    if (!options.interceptors().isEmpty()) {
      // A sync transport moves bytes without knowing where a message begins: it cannot run them.
      throw new SettingException(
          "interceptors",
          options.interceptors(),
          "none on a sync transport, which does not see where a message begins; give them to"
              + " ThriftClientPool's interceptors(..), or use openChannel");
    }
    AtomicReference<AutoCloseable> self = new AtomicReference<>();
    Runnable onClose = () -> forget(self);
    TTransport transport;
    if (options.wireKind() == WireKind.HTTP) {
      transport = SocketHttpTransport.connect(address, options, onClose);
    } else if (options.wireKind() == WireKind.SASL) {
      transport = SaslSocketTransport.connect(address, options, onClose);
    } else if (options.tls().isPresent()) {
      if (options.wireKind() == WireKind.HEADER) {
        throw new SettingException(
            "wireKind",
            "HEADER with tls",
            "FRAMED or UNFRAMED for a sync transport over TLS; THeader over TLS is spoken by"
                + " openChannel and ThriftChannelPool");
      }
      transport = adapter.connectTlsTransport(address, options, onClose);
    } else {
      transport = SocketFramedTransport.connect(address, options, onClose);
    }
    self.set(transport);
    return register(transport, address);
  }

  /** {@link ClientIo#openChannel(InetSocketAddress, ClientOptions)}. */
  public ThriftChannel openChannel(InetSocketAddress address, ClientOptions options)
      throws TTransportException {
    checkArguments(address, options);
    AtomicReference<AutoCloseable> self = new AtomicReference<>();
    ThriftChannel channel = adapter.connectChannel(address, options, () -> forget(self));
    self.set(channel);
    register(channel, address);
    if (options.wireKind() == WireKind.SASL) {
      try {
        ((CodecChannel) channel).negotiateSasl();
      } catch (TTransportException | RuntimeException e) {
        channel.close();
        throw e;
      }
    }
    return channel;
  }

  /** A connection that failed to connect closes before it is known: nothing to forget then. */
  private void forget(AtomicReference<AutoCloseable> connection) {
    AutoCloseable c = connection.get();
    if (c != null) {
      open.remove(c);
    }
  }

  /** Whether {@link #close()} has been called. */
  public boolean isClosed() {
    return closed.get();
  }

  /** Connections opened here and not yet closed. */
  public int openConnections() {
    return open.size();
  }

  /** Fails with {@code NOT_OPEN} once closed. */
  public void ensureOpen(InetSocketAddress address) throws TTransportException {
    if (closed.get()) {
      throw ClientErrors.resourcesClosed(address);
    }
  }

  private void checkArguments(InetSocketAddress address, ClientOptions options)
      throws TTransportException {
    Checks.notNull("address", address);
    Checks.notNull("options", options);
    ensureOpen(address);
  }

  private <T extends AutoCloseable> T register(T connection, InetSocketAddress address)
      throws TTransportException {
    open.add(connection);
    if (closed.get()) { // close() ran meanwhile and may have missed it
      closeQuietly(connection);
      throw ClientErrors.resourcesClosed(address);
    }
    return connection;
  }

  /** Closes every connection still open, then releases the threads. Idempotent. */
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    List<AutoCloseable> all = new ArrayList<>(open);
    for (AutoCloseable c : all) {
      closeQuietly(c);
    }
    open.clear();
    adapter.release();
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      // TTransport and ThriftChannel close without throwing; nothing else can be done here anyway
    }
  }
}
