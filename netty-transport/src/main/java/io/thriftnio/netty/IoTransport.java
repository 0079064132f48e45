package io.thriftnio.netty;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.thriftnio.core.settings.SettingException;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A resolved IO transport: the IO handler factory for new event loops and the channel classes that
 * run on them. The native transports' classes are referenced only from nested holder classes that
 * are loaded after a {@link Class#forName} check, so their artifacts stay optional. Not part of the
 * API.
 */
final class IoTransport {

  private static final Logger log = LoggerFactory.getLogger(IoTransport.class);
  private static final String EPOLL_CLASS = "io.netty.channel.epoll.Epoll";
  private static final String IO_URING_CLASS = "io.netty.channel.uring.IoUring";

  /** The NIO notice is given once per class loader: servers and clients alike resolve AUTO. */
  private static final AtomicBoolean NIO_NOTICE_GIVEN = new AtomicBoolean();

  private final NettyTransportType type;
  private final IoHandlerFactory handlerFactory;
  private final Class<? extends ServerChannel> serverChannel;
  private final Class<? extends Channel> socketChannel;

  private IoTransport(
      NettyTransportType type,
      IoHandlerFactory handlerFactory,
      Class<? extends ServerChannel> serverChannel,
      Class<? extends Channel> socketChannel) {
    this.type = type;
    this.handlerFactory = handlerFactory;
    this.serverChannel = serverChannel;
    this.socketChannel = socketChannel;
  }

  /** The transport actually in use: never {@code AUTO}. */
  public NettyTransportType type() {
    return type;
  }

  /** Creates the IO handlers of a new event loop group. */
  public IoHandlerFactory handlerFactory() {
    return handlerFactory;
  }

  /** The listening channel class. */
  public Class<? extends ServerChannel> serverChannel() {
    return serverChannel;
  }

  /** The connection channel class. */
  public Class<? extends Channel> socketChannel() {
    return socketChannel;
  }

  /**
   * Resolves a requested transport.
   *
   * @throws IllegalStateException if {@code EPOLL} or {@code IO_URING} is asked for and cannot be
   *     used here; the message says why
   */
  public static IoTransport resolve(NettyTransportType requested) {
    switch (requested) {
      case NIO:
        return nio();
      case EPOLL:
        {
          String why = epollUnavailability();
          if (why != null) {
            throw new IllegalStateException(
                "transport: EPOLL is not available (" + why + "); use AUTO or NIO");
          }
          return Epoll.transport();
        }
      case IO_URING:
        {
          String why = ioUringUnavailability();
          if (why != null) {
            throw new IllegalStateException(
                "transport: IO_URING is not available (" + why + "); use AUTO or NIO");
          }
          return IoUring.transport();
        }
      case AUTO:
      default:
        String why = epollUnavailability();
        if (why == null) {
          return Epoll.transport();
        }
        log.debug("Transport AUTO uses NIO: epoll is not available ({})", why);
        String notice =
            nioNotice(System.getProperty("os.name", ""), System.getProperty("os.arch", ""), why);
        if (notice != null && NIO_NOTICE_GIVEN.compareAndSet(false, true)) {
          log.info("{}", notice);
        }
        return nio();
    }
  }

  /**
   * What a Linux user is told, once, when {@code AUTO} falls back to NIO: why, and the artifact
   * that gives epoll, whose numbers the README quotes. {@code null} elsewhere (epoll is Linux's).
   */
  static String nioNotice(String osName, String osArch, String why) {
    if (!osName.toLowerCase(Locale.ROOT).startsWith("linux")) {
      return null;
    }
    return "Netty runs on NIO: epoll is not available ("
        + why
        + "). The README's numbers were measured on epoll; to use it, add"
        + " io.netty:netty-transport-native-epoll with classifier "
        + linuxClassifier(osArch)
        + " (the version of your Netty) to the class path";
  }

  /** Netty's classifier of its native jars for a Linux {@code os.arch}. */
  private static String linuxClassifier(String osArch) {
    switch (osArch) {
      case "amd64":
      case "x86_64":
        return "linux-x86_64";
      case "aarch64":
      case "arm64":
        return "linux-aarch_64";
      case "riscv64":
        return "linux-riscv64";
      default:
        return "linux-<arch> (linux-x86_64, linux-aarch_64 or linux-riscv64)";
    }
  }

  /**
   * The transport matching a caller's event loop group.
   *
   * @throws IllegalArgumentException if the group runs none of the known IO handlers
   */
  public static IoTransport of(EventLoopGroup group) {
    if (group instanceof IoEventLoopGroup) {
      IoEventLoopGroup io = (IoEventLoopGroup) group;
      if (io.isIoType(NioIoHandler.class)) {
        return nio();
      }
      if (isPresent(EPOLL_CLASS) && Epoll.matches(io)) {
        return Epoll.transport();
      }
      if (isPresent(IO_URING_CLASS) && IoUring.matches(io)) {
        return IoUring.transport();
      }
    }
    throw new SettingException(
        "eventLoopGroup",
        group,
        "a MultiThreadIoEventLoopGroup with the NIO, epoll or io_uring IO handler");
  }

  /** Why epoll cannot be used here, or {@code null} when it can. */
  public static String epollUnavailability() {
    if (!isPresent(EPOLL_CLASS)) {
      return "io.netty:netty-transport-classes-epoll is not on the class path";
    }
    return Epoll.unavailability();
  }

  /** Why io_uring cannot be used here, or {@code null} when it can. */
  public static String ioUringUnavailability() {
    if (!isPresent(IO_URING_CLASS)) {
      return "io.netty:netty-transport-classes-io_uring is not on the class path";
    }
    return IoUring.unavailability();
  }

  private static IoTransport nio() {
    return new IoTransport(
        NettyTransportType.NIO,
        NioIoHandler.newFactory(),
        NioServerSocketChannel.class,
        NioSocketChannel.class);
  }

  private static boolean isPresent(String className) {
    try {
      Class.forName(className, false, IoTransport.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError absent) {
      return false; // the optional artifact is not on the class path: that is the answer
    }
  }

  private static String describe(Throwable cause) {
    if (cause == null) {
      return "unknown reason";
    }
    return cause.getClass().getSimpleName() + ": " + cause.getMessage();
  }

  /** Loaded only once the epoll classes are known to be present. */
  private static final class Epoll {
    static String unavailability() {
      return io.netty.channel.epoll.Epoll.isAvailable()
          ? null
          : describe(io.netty.channel.epoll.Epoll.unavailabilityCause());
    }

    static boolean matches(IoEventLoopGroup group) {
      return group.isIoType(io.netty.channel.epoll.EpollIoHandler.class);
    }

    static IoTransport transport() {
      return new IoTransport(
          NettyTransportType.EPOLL,
          io.netty.channel.epoll.EpollIoHandler.newFactory(),
          io.netty.channel.epoll.EpollServerSocketChannel.class,
          io.netty.channel.epoll.EpollSocketChannel.class);
    }
  }

  /**
   * The system property that turns Netty's multishot {@code POLL_ADD} for io_uring on or off. With
   * it on (Netty's default), Netty 4.2.18 on Linux 6.18 misses a reset that arrives right behind
   * data: the channel keeps waiting for a read that never completes, so a client that sends a
   * request (or part of one) and aborts leaves its connection open on the server until a timeout
   * closes it, or forever without {@code idleTimeout}. In the conformance suite that was about half
   * of the runs with it on and none of 8 with it off.
   */
  public static final String IO_URING_POLL_ADD_MULTISHOT =
      "io.netty.iouring.pollAddMultishotEnabled";

  /** Loaded only once the io_uring classes are known to be present. */
  private static final class IoUring {
    static {
      // Netty reads the property once, when its IoUring class initialises, which the first use
      // below does. A value the user set wins; a caller who loaded io_uring first keeps Netty's.
      if (System.getProperty(IO_URING_POLL_ADD_MULTISHOT) == null) {
        System.setProperty(IO_URING_POLL_ADD_MULTISHOT, "false");
        log.debug(
            "{}=false: Netty's multishot POLL_ADD can miss a peer's reset (see IoTransport)",
            IO_URING_POLL_ADD_MULTISHOT);
      }
    }

    static String unavailability() {
      return io.netty.channel.uring.IoUring.isAvailable()
          ? null
          : describe(io.netty.channel.uring.IoUring.unavailabilityCause());
    }

    static boolean matches(IoEventLoopGroup group) {
      return group.isIoType(io.netty.channel.uring.IoUringIoHandler.class);
    }

    static IoTransport transport() {
      return new IoTransport(
          NettyTransportType.IO_URING,
          io.netty.channel.uring.IoUringIoHandler.newFactory(),
          io.netty.channel.uring.IoUringServerSocketChannel.class,
          io.netty.channel.uring.IoUringSocketChannel.class);
    }
  }
}
