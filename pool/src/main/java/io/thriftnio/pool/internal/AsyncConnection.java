package io.thriftnio.pool.internal;

import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.function.Predicate;
import org.apache.thrift.async.TAsyncClient;
import org.apache.thrift.transport.TNonblockingSocket;

/** One pooled generated {@code AsyncClient} and its non-blocking socket. */
public final class AsyncConnection<A extends TAsyncClient> {
  public final InetSocketAddress endpoint;
  public final TNonblockingSocket socket;
  public final A client;

  public AsyncConnection(InetSocketAddress endpoint, TNonblockingSocket socket, A client) {
    this.endpoint = endpoint;
    this.socket = socket;
    this.client = client;
  }

  /**
   * Full check of an idle client; never throws. {@code TAsyncClient} is unusable for good after any
   * error, so {@code hasError()} alone condemns it.
   */
  public boolean validate(Predicate<? super A> validator) {
    try {
      SocketChannel channel = socket.getSocketChannel();
      return !client.hasError()
          && socket.isOpen()
          && SocketTransports.peerSilent(channel)
          && (validator == null || validator.test(client));
    } catch (RuntimeException e) {
      return false;
    }
  }

  public void close() {
    socket.close();
  }
}
