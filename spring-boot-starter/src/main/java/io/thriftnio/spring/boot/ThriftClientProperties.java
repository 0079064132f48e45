package io.thriftnio.spring.boot;

import io.thriftnio.core.WireKind;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code thrift.clients.<name>.*}: one client pool, and the bean of its service's interface that
 * the application injects. The names are those of {@code ClientOptions} and the pool builders; an
 * unset ({@code null}) value keeps the builder's default.
 *
 * <pre>{@code
 * thrift:
 *   clients:
 *     kv:
 *       service: example.kv.KeyValue
 *       endpoints: [kv-1:9090, kv-2:9090]
 *       call-timeout: 2s
 * }</pre>
 *
 * @param service the generated service class (the one whose nested types are {@code Iface}, {@code
 *     Client}, ...), e.g. {@code example.kv.KeyValue}. Required
 * @param pool which pool: {@code client} (a {@code ThriftClientPool}: beans of the pool and of the
 *     service's {@code Iface}), {@code channel} (a {@code ThriftChannelPool}, pipelined: beans of
 *     the pool, of its {@code AsyncIface} and, when generated with {@code future_iface}, of its
 *     {@code FutureIface}) or {@code async} (a {@code ThriftAsyncClientPool} of the generated
 *     {@code AsyncClient}s: the same beans as {@code channel}). Default: {@code client}
 * @param endpoints the servers, {@code host:port} each; or one of {@code dns}, {@code
 *     local-server}, {@code endpoint-source}
 * @param dns a DNS name and port, {@code host:port}, re-resolved every {@code dns-interval}: every
 *     address of the name is an endpoint
 * @param dnsInterval how often {@code dns} is resolved again. Default: 5 s
 * @param localServer calls this application's own Thrift server on the loopback address, whatever
 *     port it bound (for tests and samples with {@code thrift.server.port=0}). Default: {@code
 *     false}
 * @param endpointSource the name of an {@code EndpointSource} bean of the application that feeds
 *     this pool alone (a ZooKeeper source of {@code thrift-nio-zookeeper}, say); the pool starts
 *     and closes it
 * @param protocol the Thrift protocol. Default: {@code binary}
 * @param wireKind how messages are delimited on the connection, as the server expects them: {@code
 *     framed}, {@code unframed} (a plain {@code TSocket} server), {@code http} (posts to {@code
 *     http-path}), {@code header} (THeader) or {@code sasl} (libthrift's {@code
 *     TSaslClientTransport}, with the {@code sasl} bean). Default: {@code framed}
 * @param httpPath the path an {@code http} client posts its calls to (only with {@code wire-kind:
 *     http}). Default: {@code /}
 * @param sasl the name of the application's {@code ClientSasl} bean each connection authenticates
 *     with (the mechanism and credentials, built in code: {@code ClientSasl.plain(user, password)}
 *     and the others); only with {@code wire-kind: sasl}. Default: none
 * @param maxFrameSize the largest message sent or accepted, in bytes; a larger reply closes the
 *     connection. Default: 16384000, libthrift's
 * @param connectTimeout how long a connect may take. Default: 10 s
 * @param callTimeout how long one call may wait for its reply on one connection. Default: 30 s
 * @param lateReplyTimeout how long a pipelined connection ({@code channel} pools) may receive
 *     nothing while it owes the reply of a timed-out call, before it is closed as stuck. Default:
 *     10 s
 * @param callDeadline how long a whole call may take, waits and a retry included; 0 is none.
 *     Default: none
 * @param borrowTimeout how long a call may wait for a pooled connection. Default: 5 s
 * @param maxTotal connections across all endpoints. Default: 64
 * @param maxPerEndpoint connections to one endpoint. Default: 8
 * @param maxCallsInFlightPerConnection calls one connection carries at once ({@code channel} pools
 *     only). Default: 32
 * @param selectorThreads the selector threads the generated async clients are spread over ({@code
 *     async} pools only). Default: 2
 * @param maxConnectionAge how long the pool keeps a connection (±10%) before it closes it between
 *     calls and opens another, so that a pool behind a Kubernetes Service spreads over pods added
 *     since it connected; 0 is none. Default: none
 * @param idempotent the IDL names of the methods that may run twice: retried once on another
 *     endpoint after a transport error, within the retry budget. Default: none
 * @param interceptors the names of the {@code ClientInterceptor} beans this pool's calls run
 *     through, first to run first; an empty list for none. Default (unset): every {@code
 *     ClientInterceptor} bean, in their {@code @Order}
 * @param retryBudgetRatio retries allowed per call made, over the pool's window: the pool builder's
 *     {@code retryBudgetRatio}. Default: 0.1
 * @param retryBudgetMinPerSecond retries allowed per second whatever the ratio: the pool builder's
 *     {@code retryBudgetMinPerSecond}. Default: 10
 * @param ssl {@code thrift.clients.<name>.ssl.bundle}: TLS from a Spring SSL bundle, whose trust
 *     store checks the servers and whose key store (if any) is the client's certificate
 */
public record ThriftClientProperties(
    Class<?> service,
    @DefaultValue("client") PoolType pool,
    List<String> endpoints,
    String dns,
    Duration dnsInterval,
    @DefaultValue("false") boolean localServer,
    String endpointSource,
    @DefaultValue("binary") ThriftProtocol protocol,
    WireKind wireKind,
    String httpPath,
    String sasl,
    Integer maxFrameSize,
    Duration connectTimeout,
    Duration callTimeout,
    Duration lateReplyTimeout,
    Duration callDeadline,
    Duration borrowTimeout,
    Integer maxTotal,
    Integer maxPerEndpoint,
    Integer maxCallsInFlightPerConnection,
    Integer selectorThreads,
    Duration maxConnectionAge,
    List<String> idempotent,
    List<String> interceptors,
    Double retryBudgetRatio,
    Integer retryBudgetMinPerSecond,
    @DefaultValue @NestedConfigurationProperty ThriftSslProperties ssl) {

  /** Which pool a client is. */
  public enum PoolType {
    /** {@code ThriftClientPool}: synchronous clients, one call per connection at a time. */
    CLIENT,
    /** {@code ThriftChannelPool}: pipelined channels, futures. */
    CHANNEL,
    /**
     * {@code ThriftAsyncClientPool}: libthrift's generated {@code AsyncClient}s on their own
     * selector threads, one call per connection at a time; framed or THeader, no TLS.
     */
    ASYNC
  }
}
