package io.thriftnio.spring.boot;

import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.WireKind;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code thrift.server.*}: the server that serves the application's {@link ThriftService} and
 * {@code TProcessor} beans. The names are {@code ServerBuilder}'s; an unset ({@code null}) value
 * keeps the builder's default, and the builder checks every value.
 *
 * @param enabled whether to serve the application's Thrift services. Default: {@code true}
 * @param port the port to listen on; {@code 0} picks a free one, published as the {@code
 *     local.thrift.server.port} property and by {@link ThriftServerLifecycle#localAddress()}.
 *     Default: {@code 9090}
 * @param address the address to listen on. Default: every interface (the wildcard address)
 * @param ioLibrary the IO library, {@code netty} or {@code grizzly}. Default: Netty when {@code
 *     thrift-nio-netty} is on the class path, else Grizzly
 * @param ioTransport Netty's socket transport: {@code auto} (epoll where it loads, else NIO),
 *     {@code nio}, {@code epoll}, {@code io-uring}; the native ones need their Netty artifact.
 *     Netty only. Default: {@code auto}
 * @param ioStrategy where handlers run: {@code same-thread}, {@code worker}, {@code
 *     leader-follower} (Grizzly only). Default: {@code worker}
 * @param ioThreads IO threads. Default: the number of available processors
 * @param workerThreads threads of the server's worker pool (strategy {@code worker} only). Default:
 *     64
 * @param workerQueueCapacity calls that may wait for a worker; more are answered as overloaded.
 *     Default: 10000
 * @param workerStartTimeout how long a call may wait for a worker to start it. Default: 30 s
 * @param handlerTimeout how long a handler may hold its connection's reply order; 0 is off.
 *     Default: off
 * @param queueTimeTarget the bound on queue time under overload: once calls have waited this long
 *     to start for 100 ms on end, a call that waited this long is answered "not run" instead of
 *     run; 0 is off. Default: 5 ms
 * @param boundComputingCalls whether a WORKER or LEADER_FOLLOWER server's own threads run at most
 *     about one call per processor while its calls compute (measured on Linux; calls that wait are
 *     never bounded). Default: true
 * @param maxFrameSize the largest request accepted, in bytes. Default: 16384000, libthrift's
 * @param maxConnections connections open at once; more are closed at once. Default: 16384
 * @param maxCallsInFlightPerConnection calls of one connection in flight at once. Default: 1024
 * @param maxPendingWriteBytes response bytes that may wait to be written on one connection.
 *     Default: 32 MiB
 * @param idleTimeout closes a connection idle this long; 0 is off. Default: off
 * @param frameTimeout closes a connection that leaves a frame unfinished this long. Default: 30 s
 * @param maxConnectionAge closes a connection older than this (varied by 10% per connection) once
 *     no call has been on it for a second, for stock clients to rebalance; pools have their own
 *     {@code max-connection-age}, which has no race. Default: never
 * @param maxConnectionAgeGrace closes a connection still in use this long past its age, failing its
 *     calls in flight (only with {@code max-connection-age}). Default: never
 * @param drainTimeout how long the shutdown lets calls in flight finish before it closes their
 *     connections. Keep it below {@code spring.lifecycle.timeout-per-shutdown-phase} (default 30
 *     s), which bounds the whole shutdown phase. Default: 10 s
 * @param wireKinds the wire kinds accepted on the port: {@code framed}, {@code unframed}, {@code
 *     http}, {@code header}, {@code sasl} (with the application's {@code ServerSasl} bean, which
 *     says the mechanisms and who may connect). Default: {@code framed}
 * @param httpPath the path HTTP callers post to (only with {@code http} among the wire kinds).
 *     Default: {@code /}
 * @param healthPath the path of a health probe on the Thrift port: an HTTP {@code GET} there is
 *     {@code 200} while serving, {@code 503} throughout the drain (the port keeps accepting for the
 *     probe alone until the drain ends; only with {@code http} among the wire kinds), for a
 *     kubelet's {@code httpGet} probe. Default: none
 * @param protocol the Thrift protocol: {@code binary}, {@code compact} or {@code json}. Default:
 *     {@code binary}
 * @param multiplexed serves even a single service through a {@code TMultiplexedProcessor}, for
 *     callers that use {@code TMultiplexedProtocol}; several services are always multiplexed.
 *     Default: {@code false}
 * @param ssl {@code thrift.server.ssl.*}: TLS from a Spring SSL bundle ({@code
 *     spring.ssl.bundle.*}): {@code bundle}, the bundle's name (the server serves TLS when set;
 *     default none, plain TCP), and {@code client-auth}, whether clients must present a certificate
 *     trusted by the bundle's trust store: {@code none}, {@code optional}, {@code require} (default
 *     {@code none})
 */
public record ThriftServerProperties(
    @DefaultValue("true") boolean enabled,
    @DefaultValue("9090") int port,
    InetAddress address,
    IoLibrary ioLibrary,
    IoTransport ioTransport,
    IoStrategy ioStrategy,
    Integer ioThreads,
    Integer workerThreads,
    Integer workerQueueCapacity,
    Duration workerStartTimeout,
    Duration handlerTimeout,
    Duration queueTimeTarget,
    Boolean boundComputingCalls,
    Integer maxFrameSize,
    Integer maxConnections,
    Integer maxCallsInFlightPerConnection,
    Integer maxPendingWriteBytes,
    Duration idleTimeout,
    Duration frameTimeout,
    Duration maxConnectionAge,
    Duration maxConnectionAgeGrace,
    Duration drainTimeout,
    List<WireKind> wireKinds,
    String httpPath,
    String healthPath,
    @DefaultValue("binary") ThriftProtocol protocol,
    @DefaultValue("false") boolean multiplexed,
    @DefaultValue @NestedConfigurationProperty ThriftSslProperties ssl) {

  /**
   * Netty's socket transports, as {@code io.thriftnio.netty.NettyTransportType} names them, mapped
   * to it by name when the server is built. Not that enum bound directly: it lives in {@code
   * thrift-nio-netty}, which a Grizzly-only application excludes, and binding reads this record's
   * component types, which would then fail with {@code NoClassDefFoundError} before any property is
   * read. This copy must list the same constants (a test compares them).
   */
  public enum IoTransport {
    /** Epoll where its native library loads, else NIO. */
    AUTO,
    /** Java NIO. */
    NIO,
    /** Linux epoll. */
    EPOLL,
    /** Linux io_uring. */
    IO_URING
  }

  /**
   * The IO library a server or the clients run on: a choice between artifacts, which the library
   * itself does not make (each transport module has its own server builder and client IO), so the
   * starter owns this enum.
   */
  public enum IoLibrary {
    /** {@code thrift-nio-netty}. */
    NETTY,
    /** {@code thrift-nio-grizzly}. */
    GRIZZLY
  }
}
