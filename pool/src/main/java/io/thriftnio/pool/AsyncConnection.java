package io.thriftnio.pool;

import io.thriftnio.core.internal.client.InterceptedConnection;
import io.thriftnio.core.internal.client.THeaderNonblockingSocket;
import io.thriftnio.core.util.internal.HeaderSlot;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.function.Predicate;
import org.apache.thrift.async.TAsyncClient;
import org.apache.thrift.transport.TNonblockingSocket;

/** One pooled generated {@code AsyncClient} and its non-blocking socket. */
final class AsyncConnection<A extends TAsyncClient> {
  public final InetSocketAddress endpoint;
  public final TNonblockingSocket socket;
  public final A client;

  /** Runs the interceptors around the client's calls; {@code null} without interceptors. */
  private final InterceptedConnection interception;

  public AsyncConnection(
      InetSocketAddress endpoint,
      TNonblockingSocket socket,
      A client,
      InterceptedConnection interception) {
    this.endpoint = endpoint;
    this.socket = socket;
    this.client = client;
    this.interception = interception;
  }

  /**
   * A call starts on the client, on the calling thread: on THeader, its request sends the headers
   * of {@code scope} and {@code timeoutMillis} (0: none) as {@code client_timeout}, and its reply's
   * headers reach {@code scope}. Nothing on a framed connection, which carries no headers.
   */
  public void beginCall(HeaderSlot scope, long timeoutMillis) {
    if (socket instanceof THeaderNonblockingSocket) {
      ((THeaderNonblockingSocket) socket).beginCall(scope, timeoutMillis);
    }
  }

  /**
   * The client's call ended with {@code failure} ({@code null} for success): ends it for the
   * interceptors if reading its reply has not already.
   */
  public void settleCall(Throwable failure) {
    if (interception != null) {
      interception.settle(failure);
    }
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
          && !(socket instanceof THeaderNonblockingSocket
              && ((THeaderNonblockingSocket) socket).hasUnreadBytes())
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
