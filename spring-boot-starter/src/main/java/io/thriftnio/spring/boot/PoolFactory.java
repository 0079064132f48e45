package io.thriftnio.spring.boot;

import io.thriftnio.core.ClientInterceptor;
import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.sasl.ClientSasl;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.pool.EndpointSource;
import io.thriftnio.pool.PoolBuilder;
import io.thriftnio.pool.ThriftAsyncClientPool;
import io.thriftnio.pool.ThriftChannelPool;
import io.thriftnio.pool.ThriftClientPool;
import io.thriftnio.spring.boot.ThriftClientProperties.PoolType;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.thrift.TServiceClient;
import org.apache.thrift.async.TAsyncClient;
import org.apache.thrift.async.TAsyncClientManager;
import org.apache.thrift.protocol.TProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TNonblockingTransport;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/** Builds the pool of one {@code thrift.clients.<name>}. */
final class PoolFactory {

  private final ThriftProperties properties;
  private final Supplier<ClientIo> io;
  private final List<ClientInterceptor> interceptors;
  private final Function<String, ClientInterceptor> interceptorBeans;
  private final Function<String, ClientSasl> saslBeans;
  private final ThriftMeterBinding meters;
  private final SslBundles bundles;
  private final Supplier<ThriftServerLifecycle> localServer;
  private final Function<String, EndpointSource> sourceBeans;
  private final ThriftPools pools;

  PoolFactory(
      ThriftProperties properties,
      Supplier<ClientIo> io,
      List<ClientInterceptor> interceptors,
      Function<String, ClientInterceptor> interceptorBeans,
      Function<String, ClientSasl> saslBeans,
      ThriftMeterBinding meters,
      SslBundles bundles,
      Supplier<ThriftServerLifecycle> localServer,
      Function<String, EndpointSource> sourceBeans,
      ThriftPools pools) {
    this.properties = properties;
    this.io = io;
    this.interceptors = List.copyOf(interceptors);
    this.interceptorBeans = interceptorBeans;
    this.saslBeans = saslBeans;
    this.meters = meters;
    this.bundles = bundles;
    this.localServer = localServer;
    this.sourceBeans = sourceBeans;
    this.pools = pools;
  }

  /**
   * The pool of {@code thrift.clients.<name>}: a {@code ThriftClientPool} or a {@code
   * ThriftChannelPool}.
   */
  Object create(String name) {
    ThriftClientProperties p = properties.clients().get(name);
    String prefix = "thrift.clients." + name;
    Class<? extends TServiceClient> client = ClientClasses.client(prefix, p.service());
    ClientOptions options =
        SettingErrors.withPath(prefix, ThriftClientProperties.class, () -> options(prefix, p));
    EndpointStates states = new EndpointStates(meters.poolMetrics(name));
    Consumer<PoolBuilder<?, ?>> shared =
        b -> {
          b.protocol(p.protocol().factory());
          b.endpointSource(source(prefix, p));
          settings(b, p);
          b.metrics(states);
          b.options(options);
          b.interceptors(interceptors(prefix, p));
          if (p.idempotent() != null) {
            b.idempotent(p.idempotent().toArray(String[]::new));
          }
          if (p.maxConnectionAge() != null) {
            b.maxConnectionAge(p.maxConnectionAge());
          }
        };
    if (p.selectorThreads() != null && p.pool() != PoolType.ASYNC) {
      throw new IllegalStateException(
          prefix
              + ".selector-threads: "
              + p.selectorThreads()
              + " (expected: unset; only pool async runs selector threads, this is pool "
              + p.pool().name().toLowerCase(java.util.Locale.ROOT)
              + ")");
    }
    if (p.pool() == PoolType.ASYNC) {
      if (p.maxCallsInFlightPerConnection() != null) {
        throw new IllegalStateException(
            prefix
                + ".max-calls-in-flight-per-connection: "
                + p.maxCallsInFlightPerConnection()
                + " (expected: unset; ignored with pool async, whose clients make one call at a"
                + " time)");
      }
      Constructor<? extends TAsyncClient> c =
          ClientClasses.asyncConstructor(ClientClasses.asyncClient(prefix, p.service()));
      ThriftAsyncClientPool.Builder<TAsyncClient> b =
          ThriftAsyncClientPool.builder(
              (manager, protocols) ->
                  transport -> ClientClasses.newAsyncClient(c, protocols, manager, transport));
      shared.accept(b);
      if (p.selectorThreads() != null) {
        b.selectorThreads(p.selectorThreads());
      }
      ThriftAsyncClientPool<TAsyncClient> pool =
          SettingErrors.withPath(prefix, ThriftClientProperties.class, b::build);
      register(name, "ThriftAsyncClientPool", pool::endpoints, pool::stats, states);
      return pool;
    }
    if (p.pool() == PoolType.CHANNEL) {
      Constructor<? extends TServiceClient> c = ClientClasses.constructor(client, 2);
      ThriftChannelPool.Builder<TServiceClient> b =
          ThriftChannelPool.builder((in, out) -> ClientClasses.newClient(c, in, out)).io(io.get());
      shared.accept(b);
      if (p.maxCallsInFlightPerConnection() != null) {
        b.maxCallsInFlightPerConnection(p.maxCallsInFlightPerConnection());
      }
      ThriftChannelPool<TServiceClient> pool =
          SettingErrors.withPath(prefix, ThriftClientProperties.class, b::build);
      register(name, "ThriftChannelPool", pool::endpoints, pool::stats, states);
      return pool;
    }
    if (p.maxCallsInFlightPerConnection() != null) {
      throw new IllegalStateException(
          prefix
              + ".max-calls-in-flight-per-connection: "
              + p.maxCallsInFlightPerConnection()
              + " (expected: unset; ignored with pool client, which makes one call per connection"
              + " at a time)");
    }
    Constructor<? extends TServiceClient> c = ClientClasses.constructor(client, 1);
    ThriftClientPool.Builder<TServiceClient> b =
        ThriftClientPool.builder((TProtocol in) -> ClientClasses.newClient(c, in)).io(io.get());
    shared.accept(b);
    ThriftClientPool<TServiceClient> pool =
        SettingErrors.withPath(prefix, ThriftClientProperties.class, b::build);
    register(name, "ThriftClientPool", pool::endpoints, pool::stats, states);
    return pool;
  }

  private void register(
      String name,
      String type,
      Supplier<List<InetSocketAddress>> endpoints,
      Supplier<io.thriftnio.pool.PoolStats> stats,
      EndpointStates states) {
    pools.add(new ThriftPools.Handle(name, type, endpoints, stats, states));
    meters.bindPool(name, stats);
  }

  /** The pool's interceptors: those {@code interceptors} names, else every bean in order. */
  private List<ClientInterceptor> interceptors(String prefix, ThriftClientProperties p) {
    if (p.interceptors() == null) {
      return interceptors;
    }
    List<ClientInterceptor> chosen = new ArrayList<>();
    for (int i = 0; i < p.interceptors().size(); i++) {
      String path = prefix + ".interceptors[" + i + "]";
      try {
        chosen.add(interceptorBeans.apply(p.interceptors().get(i)));
      } catch (IllegalStateException e) {
        throw new IllegalStateException(path + ": " + e.getMessage(), e);
      }
    }
    return chosen;
  }

  private ClientOptions options(String prefix, ThriftClientProperties p) {
    ClientOptions.Builder b = ClientOptions.builder();
    if (p.connectTimeout() != null) {
      b.connectTimeout(p.connectTimeout());
    }
    if (p.callTimeout() != null) {
      b.callTimeout(p.callTimeout());
    }
    if (p.lateReplyTimeout() != null) {
      b.lateReplyTimeout(p.lateReplyTimeout());
    }
    if (p.maxFrameSize() != null) {
      b.maxFrameSize(p.maxFrameSize());
    }
    if (p.wireKind() != null) {
      b.wireKind(p.wireKind());
    }
    if (p.httpPath() != null) {
      b.httpPath(p.httpPath());
    }
    if (p.sasl() != null) {
      try {
        b.sasl(saslBeans.apply(p.sasl()));
      } catch (IllegalStateException e) {
        throw new IllegalStateException(prefix + ".sasl: " + e.getMessage(), e);
      }
    }
    if (p.ssl().clientAuth() != null) {
      throw new IllegalStateException(
          prefix
              + ".ssl.client-auth: "
              + p.ssl().clientAuth()
              + " (expected: unset; a server setting: a client presents the certificate of its"
              + " ssl.bundle's key store)");
    }
    if (p.ssl().bundle() != null) {
      SslBundle bundle = Bundles.get(bundles, p.ssl().bundle(), prefix + ".ssl.bundle");
      ClientTls.Builder tls =
          ClientTls.builder().trustManagerFactory(bundle.getManagers().getTrustManagerFactory());
      if (bundle.getStores().getKeyStore() != null) {
        tls.keyManagerFactory(bundle.getManagers().getKeyManagerFactory());
      }
      b.tls(SettingErrors.withPath(prefix + ".ssl", ThriftSslProperties.class, tls::build));
    }
    return b.build();
  }

  /** The pool settings of the properties; each is checked by the pool's {@code build()}. */
  private static void settings(PoolBuilder<?, ?> b, ThriftClientProperties p) {
    if (p.maxTotal() != null) {
      b.maxTotal(p.maxTotal());
    }
    if (p.maxPerEndpoint() != null) {
      b.maxPerEndpoint(p.maxPerEndpoint());
    }
    if (p.borrowTimeout() != null) {
      b.borrowTimeout(p.borrowTimeout());
    }
    if (p.callDeadline() != null) {
      b.callDeadline(p.callDeadline());
    }
    if (p.retryBudgetRatio() != null) {
      b.retryBudgetRatio(p.retryBudgetRatio());
    }
    if (p.retryBudgetMinPerSecond() != null) {
      b.retryBudgetMinPerSecond(p.retryBudgetMinPerSecond());
    }
  }

  private EndpointSource source(String prefix, ThriftClientProperties p) {
    List<String> given = p.endpoints() == null ? List.of() : p.endpoints();
    int sources =
        (given.isEmpty() ? 0 : 1)
            + (p.dns() == null ? 0 : 1)
            + (p.localServer() ? 1 : 0)
            + (p.endpointSource() == null ? 0 : 1);
    if (sources != 1) {
      throw new IllegalStateException(
          prefix
              + ": endpoints "
              + given
              + ", dns "
              + p.dns()
              + ", local-server "
              + p.localServer()
              + ", endpoint-source "
              + p.endpointSource()
              + " (expected: exactly one of endpoints, dns, local-server, endpoint-source)");
    }
    if (p.endpointSource() != null) {
      try {
        return sourceBeans.apply(p.endpointSource());
      } catch (IllegalStateException e) {
        throw new IllegalStateException(prefix + "." + e.getMessage(), e);
      }
    }
    if (p.localServer()) {
      return new LocalServerEndpointSource(localServer.get());
    }
    if (p.dns() != null) {
      InetSocketAddress dns = Endpoints.parse(prefix + ".dns", p.dns());
      Duration interval = p.dnsInterval();
      return SettingErrors.withPath(
          prefix,
          ThriftClientProperties.class,
          () ->
              interval == null
                  ? EndpointSource.dns(dns.getHostString(), dns.getPort())
                  : EndpointSource.dns(dns.getHostString(), dns.getPort(), interval));
    }
    List<InetSocketAddress> endpoints = new ArrayList<>();
    for (int i = 0; i < given.size(); i++) {
      endpoints.add(Endpoints.parse(prefix + ".endpoints[" + i + "]", given.get(i)));
    }
    return EndpointSource.of(endpoints);
  }

  /** The generated client's constructors, found once per pool. */
  static final class ClientClasses {
    private ClientClasses() {}

    static Class<? extends TServiceClient> client(String prefix, Class<?> service) {
      if (service == null) {
        throw new IllegalStateException(
            prefix
                + ".service: null (expected: the generated service class, e.g. example.KeyValue)");
      }
      Class<?> client = ServiceDiscovery.nested(service, "Client");
      if (!TServiceClient.class.isAssignableFrom(client)) {
        throw new IllegalStateException(
            prefix + ".service: " + service.getName() + " (expected: a generated service class)");
      }
      return client.asSubclass(TServiceClient.class);
    }

    static Class<? extends TAsyncClient> asyncClient(String prefix, Class<?> service) {
      Class<?> client = ServiceDiscovery.nested(service, "AsyncClient");
      if (!TAsyncClient.class.isAssignableFrom(client)) {
        throw new IllegalStateException(
            prefix + ".service: " + service.getName() + " (expected: a generated service class)");
      }
      return client.asSubclass(TAsyncClient.class);
    }

    static Constructor<? extends TAsyncClient> asyncConstructor(
        Class<? extends TAsyncClient> client) {
      try {
        return client.getConstructor(
            TProtocolFactory.class, TAsyncClientManager.class, TNonblockingTransport.class);
      } catch (NoSuchMethodException e) {
        throw new IllegalStateException(
            client.getName() + " is not a generated async client: " + e, e);
      }
    }

    static TAsyncClient newAsyncClient(
        Constructor<? extends TAsyncClient> c,
        TProtocolFactory protocols,
        TAsyncClientManager manager,
        TNonblockingTransport transport) {
      try {
        return c.newInstance(protocols, manager, transport);
      } catch (InvocationTargetException e) {
        throw new IllegalStateException("cannot create " + c.getName(), e.getCause());
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot create " + c.getName(), e);
      }
    }

    static Constructor<? extends TServiceClient> constructor(
        Class<? extends TServiceClient> client, int protocols) {
      try {
        return protocols == 1
            ? client.getConstructor(TProtocol.class)
            : client.getConstructor(TProtocol.class, TProtocol.class);
      } catch (NoSuchMethodException e) {
        throw new IllegalStateException(client.getName() + " is not a generated client: " + e, e);
      }
    }

    static TServiceClient newClient(
        Constructor<? extends TServiceClient> c, TProtocol... protocols) {
      try {
        return c.newInstance((Object[]) protocols);
      } catch (InvocationTargetException e) {
        throw new IllegalStateException("cannot create " + c.getName(), e.getCause());
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot create " + c.getName(), e);
      }
    }
  }
}
