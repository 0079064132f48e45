package io.thriftnio.netty;

/**
 * The Netty IO transport under a server's or a client's event loops.
 *
 * <p>The native transports are optional dependencies: add {@code
 * io.netty:netty-transport-native-epoll} (or {@code netty-transport-native-io_uring}) with the
 * classifier of your platform, e.g. {@code linux-x86_64}, to make them available.
 */
public enum NettyTransportType {
  /** Epoll when its native library is on the class path and loads on this machine, else NIO. */
  AUTO,
  /** Java NIO selectors: every platform, no native code. */
  NIO,
  /** Linux epoll; fails at build time when it is not available, naming the reason. */
  EPOLL,
  /**
   * Linux io_uring; never chosen by {@link #AUTO}, only when asked for. Fails at build time when it
   * is not available, naming the reason.
   */
  IO_URING
}
