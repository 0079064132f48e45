package io.thriftnio.testkit;

import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ThriftChannel;
import java.net.InetSocketAddress;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;

/**
 * A {@link ClientIo} that opens channels of the test's own (a channel over a plain socket, one that
 * records or drops what passes, one the test can kill): how a test gives a {@code
 * ThriftChannelPool}, whose one way to open connections is {@code io(..)}, channels that are not
 * Netty's or Grizzly's. The pool's options reach the opener only if it asks for them.
 */
public final class ChannelIo implements ClientIo {

  /** Opens one channel; any exception is a connect failure. */
  @FunctionalInterface
  public interface Opener {
    /**
     * @param endpoint where to connect
     * @param options the options the pool opens its channels with
     * @return an open channel
     * @throws Exception if it cannot be opened
     */
    ThriftChannel open(InetSocketAddress endpoint, ClientOptions options) throws Exception;
  }

  /** {@link Opener} without the options. */
  @FunctionalInterface
  public interface EndpointOpener {
    /**
     * @param endpoint where to connect
     * @return an open channel
     * @throws Exception if it cannot be opened
     */
    ThriftChannel open(InetSocketAddress endpoint) throws Exception;
  }

  private final Opener opener;

  private ChannelIo(Opener opener) {
    this.opener = opener;
  }

  /** Channels from {@code opener}, which ignores the pool's options. */
  public static ClientIo of(EndpointOpener opener) {
    return new ChannelIo((endpoint, options) -> opener.open(endpoint));
  }

  /** Channels from {@code opener}, given the pool's options. */
  public static ClientIo withOptions(Opener opener) {
    return new ChannelIo(opener);
  }

  @Override
  public ThriftChannel openChannel(InetSocketAddress endpoint, ClientOptions options)
      throws TTransportException {
    try {
      return opener.open(endpoint, options);
    } catch (TTransportException e) {
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TTransportException(
          TTransportException.NOT_OPEN, "interrupted connecting to " + endpoint, e);
    } catch (Exception e) {
      throw new TTransportException(
          TTransportException.NOT_OPEN, "cannot connect to " + endpoint + ": " + e, e);
    }
  }

  @Override
  public TTransport openTransport(InetSocketAddress endpoint, ClientOptions options) {
    throw new UnsupportedOperationException("ChannelIo opens channels only");
  }

  /** Nothing to close: the channels are the pool's. */
  @Override
  public void close() {}

  @Override
  public String toString() {
    return "ChannelIo";
  }
}
