package io.thriftnio.core.util.internal;

/**
 * A client connection that reports when it closes, as {@code ThriftChannel.whenClosed} does for
 * channels. The sync transports of this library implement it (the TLS transports over Netty and
 * Grizzly see the peer close or reset an idle connection on their IO thread; {@code
 * SocketFramedTransport}, a blocking socket nobody reads between calls, reports only the closes it
 * makes itself: after a failure, a timeout, or {@code close()}). Pools use it to drop a closed idle
 * connection at once. Stock {@code TSocket} and {@code TNonblockingSocket} have no such signal: a
 * pool finds them closed when it validates them. Not an API.
 */
public interface CloseAware {

  /**
   * Runs {@code action} once when the connection closes, however it closes, on the thread that saw
   * the close; at once on the calling thread if it is closed already.
   *
   * @param action must neither block nor throw
   */
  void whenClosed(Runnable action);
}
