package io.thriftnio.core;

/**
 * A client connection that reports when it closes, as {@link ThriftChannel#whenClosed} does for
 * channels. The sync transports of this library implement it ({@code TNettyTransport} and {@code
 * TGrizzlyClientTransport} see the peer close or reset an idle connection on their IO thread;
 * {@code SocketFramedTransport}, a blocking socket nobody reads between calls, reports only the
 * closes it makes itself: after a failure, a timeout, or {@code close()}). Pools use it to drop a
 * closed idle connection at once. Stock {@code TSocket} and {@code TNonblockingSocket} have no such
 * signal: a pool finds them closed when it validates them.
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
