package io.thriftnio.netty;

/**
 * The Netty IO transport under a server's or a client's event loops.
 *
 * <p>The native transports are optional dependencies: add {@code
 * io.netty:netty-transport-native-epoll} (or {@code netty-transport-native-io_uring}) with the
 * classifier of your platform, e.g. {@code linux-x86_64}, and the version of the Netty in use (the
 * native library must come from the same release as Netty's classes), to make them available.
 * thrift-nio is built and tested with Netty 4.2.18.Final and both native transports.
 */
public enum NettyTransportType {
  /**
   * The default: epoll when its native library is on the class path and loads on this machine (on
   * Linux with {@code netty-transport-native-epoll}), else NIO; never io_uring. Epoll is preferred
   * because it measured less server CPU per call than NIO with the default WORKER strategy (about
   * 15% less; README, "Netty native transports and OpenSSL"); where it cannot load, NIO serves with
   * the same behaviour.
   */
  AUTO,
  /** Java NIO selectors: every platform, no native code. */
  NIO,
  /** Linux epoll; fails at build time when it is not available, naming the reason. */
  EPOLL,
  /**
   * Linux io_uring; never chosen by {@link #AUTO}, only when asked for: many kernels and container
   * runtimes turn it off ({@code kernel.io_uring_disabled}, seccomp filters), and Netty needs Linux
   * 5.9 or newer for it. Fails at build time when it is not available, naming the reason.
   */
  IO_URING
}
