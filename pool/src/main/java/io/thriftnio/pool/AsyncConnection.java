package io.thriftnio.pool;

import io.thriftnio.core.internal.client.AsyncClientSocket;
import io.thriftnio.core.internal.client.ClientErrors;
import io.thriftnio.core.internal.client.InterceptedConnection;
import io.thriftnio.core.internal.client.THeaderNonblockingSocket;
import io.thriftnio.core.util.internal.CallTimeoutException;
import io.thriftnio.core.util.internal.HeaderSlot;
import io.thriftnio.core.util.internal.ReplyChecks;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.thrift.async.TAsyncClient;
import org.apache.thrift.transport.TNonblockingSocket;

/**
 * One pooled non-blocking socket and the generated {@code AsyncClient} over it. The stock client is
 * unusable after any error, a declared exception included; the socket is not, after a whole reply:
 * {@link #renew} puts a fresh client over it.
 */
final class AsyncConnection<A extends TAsyncClient> {
  public final InetSocketAddress endpoint;
  public final TNonblockingSocket socket;

  /** The current client; replaced only by {@link #renew}, while the connection is borrowed. */
  public volatile A client;

  /** A new client over {@link #socket}, as the first was made. */
  private final Supplier<A> clients;

  /** Runs the interceptors around the client's calls; {@code null} without interceptors. */
  private final InterceptedConnection interception;

  public AsyncConnection(
      InetSocketAddress endpoint,
      TNonblockingSocket socket,
      Supplier<A> clients,
      InterceptedConnection interception) {
    this.endpoint = endpoint;
    this.socket = socket;
    this.clients = clients;
    this.client = clients.get();
    this.interception = interception;
  }

  /**
   * After a call that read its whole reply and still left its client in error (a declared
   * exception, an application exception: {@link Failures#keepsConnection}): a fresh client takes
   * the socket over. {@code false}, leaving the connection to be destroyed, when the socket closed
   * or holds bytes no call asked for.
   */
  public boolean renew() {
    try {
      if (!(socket instanceof AsyncClientSocket s) || !s.betweenReplies() || !socket.isOpen()) {
        return false;
      }
      client = clients.get();
      return true;
    } catch (RuntimeException e) {
      return false;
    }
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
   * What the pool's callers hear for {@code failure}: libthrift's bare {@code TimeoutException} for
   * a call that outlived the client's timeout becomes the {@link CallTimeoutException} every client
   * raises, naming the method, the server and the setting; anything else as it is.
   */
  public Exception explain(Exception failure) {
    String method = socket instanceof AsyncClientSocket s ? s.lastMethod() : null;
    if (!(failure instanceof TimeoutException)) {
      // libthrift's bare decode errors, restated to name the endpoint and the method.
      return ReplyChecks.unreadable(failure, method, endpoint) instanceof Exception e ? e : failure;
    }
    CallTimeoutException e =
        ClientErrors.noResponse(
            endpoint, method, client.getTimeout(), "; connection closed", false);
    e.initCause(failure);
    return e;
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
    if (socket instanceof AsyncClientSocket s) {
      s.closeNow();
    } else {
      socket.close();
    }
  }
}
