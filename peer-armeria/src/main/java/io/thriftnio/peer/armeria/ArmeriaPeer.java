package io.thriftnio.peer.armeria;

import com.linecorp.armeria.common.Flags;
import com.linecorp.armeria.common.SerializationFormat;
import com.linecorp.armeria.common.SessionProtocol;
import com.linecorp.armeria.common.thrift.ThriftSerializationFormats;
import com.linecorp.armeria.common.util.Version;
import com.linecorp.armeria.server.Server;
import com.linecorp.armeria.server.thrift.THttpService;
import io.thriftnio.testkit.AsyncBenchHandler;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.IntSupplier;

/**
 * What the bench calls, through a class loader of its own and with JDK types only (it cannot see
 * Armeria's): Armeria's server with {@code THttpService} serving the testkit's {@code BenchService}
 * over HTTP.
 */
public final class ArmeriaPeer {

  /** SLF4J Simple's level property: Armeria's info lines stay out of the bench's log. */
  private static final String LOG_LEVEL = "org.slf4j.simpleLogger.defaultLogLevel";

  private ArmeriaPeer() {}

  /**
   * Starts Armeria's server: HTTP (HTTP/1.1, and h2c where a client upgrades) in cleartext on
   * {@code host:port}, {@code THttpService} at {@code path} serving {@code AsyncBenchHandler}, the
   * testkit's reference handler as an {@code AsyncIface}. Armeria runs an {@code AsyncIface} on the
   * event loop that read the request (its default; an {@code Iface} would run on its blocking task
   * executor). The one serialization format served is {@code protocol}'s, so that a request whose
   * {@code Content-Type} is the bare {@code application/x-thrift} (the stock {@code THttpClient}'s
   * and the library's) is read in it; Armeria answers {@code 415} to any other Thrift format.
   * Everything else is Armeria's default (request timeout, headers, transport).
   *
   * @param host the address to bind
   * @param port the port, 0 for a free one
   * @param eventLoops Armeria's worker event loops, the threads that serve connections ({@code
   *     --io-threads}); Armeria's boss thread accepts
   * @param protocol {@code binary}, {@code compact} or {@code json}
   * @param path the path THttpService is served at, e.g. {@code /}
   * @return the running server: an {@link IntSupplier} of the bound port, whose {@code toString()}
   *     says what runs, closed to stop it
   */
  public static AutoCloseable serve(
      String host, int port, int eventLoops, String protocol, String path) {
    if (System.getProperty(LOG_LEVEL) == null) {
      System.setProperty(LOG_LEVEL, "warn");
    }
    // Armeria's threads, created while it starts, inherit this thread's context class loader, and
    // libraries under Armeria look their plug-ins up there (Micrometer's context propagation loads
    // its ThreadLocalAccessors with ServiceLoader): the peer's own loader, not the bench's, whose
    // copies of those libraries are other classes.
    Thread thread = Thread.currentThread();
    ClassLoader caller = thread.getContextClassLoader();
    thread.setContextClassLoader(ArmeriaPeer.class.getClassLoader());
    try {
      return start(host, port, eventLoops, protocol, path);
    } finally {
      thread.setContextClassLoader(caller);
    }
  }

  private static AutoCloseable start(
      String host, int port, int eventLoops, String protocol, String path) {
    SerializationFormat format = format(protocol);
    THttpService service =
        THttpService.builder()
            .addService(new AsyncBenchHandler())
            .defaultSerializationFormat(format)
            .otherSerializationFormats(List.of())
            .build();
    Server server =
        Server.builder()
            .http(new InetSocketAddress(host, port))
            .workerGroup(eventLoops)
            .service(path, service)
            .gracefulShutdownTimeout(Duration.ZERO, Duration.ZERO)
            .build();
    try {
      server.start().join();
    } catch (RuntimeException e) {
      server.stop().join();
      throw e;
    }
    String about =
        "Armeria "
            + Version.get("armeria", ArmeriaPeer.class.getClassLoader()).artifactVersion()
            + " THttpService ("
            + format.uriText()
            + ") on "
            + Flags.transportType().name().toLowerCase(Locale.ROOT)
            + ", 1 boss and "
            + eventLoops
            + " worker event loop(s), handler on the event loop (AsyncIface)";
    return new Served(server, server.activeLocalPort(SessionProtocol.HTTP), about);
  }

  private static SerializationFormat format(String protocol) {
    switch (protocol.toLowerCase(Locale.ROOT)) {
      case "binary":
        return ThriftSerializationFormats.BINARY;
      case "compact":
        return ThriftSerializationFormats.COMPACT;
      case "json":
        return ThriftSerializationFormats.JSON;
      default:
        throw new IllegalArgumentException(
            "protocol: " + protocol + " (expected: binary, compact or json)");
    }
  }

  private record Served(Server server, int port, String about)
      implements AutoCloseable, IntSupplier {
    @Override
    public int getAsInt() {
      return port;
    }

    @Override
    public void close() {
      server.stop().join();
    }

    @Override
    public String toString() {
      return about;
    }
  }
}
