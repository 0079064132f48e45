package io.thriftnio.pool;

import io.thriftnio.core.ClientInterceptor;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.internal.client.ClientInterception;
import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.util.internal.Checks;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * What every pool's builder sets: the endpoints, the protocol, the limits, the metrics and an
 * optional check of idle connections. {@link ThriftClientPool.Builder}, {@link
 * ThriftAsyncClientPool.Builder} and {@link ThriftChannelPool.Builder} add their own settings.
 *
 * @param <V> what the validator checks: the pooled client or channel
 * @param <B> the concrete builder, returned by each setter
 */
public abstract class PoolBuilder<V, B extends PoolBuilder<V, B>> {
  private final List<InetSocketAddress> endpoints = new ArrayList<>();
  private EndpointSource endpointSource;
  private TProtocolFactory protocolFactory = new TBinaryProtocol.Factory();
  private PoolConfig config = PoolConfig.defaults();
  private PoolMetrics metrics = PoolMetrics.NONE;
  private Predicate<? super V> validator;
  private List<? extends ClientInterceptor> interceptors = List.of();
  private Predicate<String> idempotent;
  private boolean inheritDeadline = true;
  private String[] idempotentNames;
  private ClientOptions options; // null: not given, the defaults
  private Duration maxConnectionAge = Duration.ZERO;

  PoolBuilder() {}

  @SuppressWarnings("unchecked")
  private B self() {
    return (B) this;
  }

  /**
   * The protocol the servers speak. Default {@code TBinaryProtocol.Factory()}.
   *
   * @param protocolFactory not null
   * @return this builder
   */
  public final B protocol(TProtocolFactory protocolFactory) {
    this.protocolFactory = protocolFactory;
    return self();
  }

  /**
   * Adds an endpoint, to a fixed list ({@link EndpointSource#of(List)}). An endpoint or an {@link
   * #endpointSource(EndpointSource)} is required; no default.
   *
   * @param endpoint not null
   * @return this builder
   */
  public final B endpoint(InetSocketAddress endpoint) {
    endpoints.add(endpoint);
    return self();
  }

  /**
   * Adds endpoints, to a fixed list ({@link EndpointSource#of(List)}). An endpoint or an {@link
   * #endpointSource(EndpointSource)} is required; no default.
   *
   * @param endpoints not null, no null element
   * @return this builder
   */
  public final B endpoints(InetSocketAddress... endpoints) {
    if (endpoints == null) {
      this.endpoints.add(null); // refused at build, like a null element
    } else {
      this.endpoints.addAll(Arrays.asList(endpoints));
    }
    return self();
  }

  /**
   * Where the endpoints come from, for a set that changes: the pool follows the source (new
   * endpoints are used by new borrows, those that leave are drained, an empty set fails borrows at
   * once). The pool starts the source when it is built and closes it when it is closed; a source
   * serves one pool. Instead of {@link #endpoint(InetSocketAddress)}; no default.
   *
   * @param endpointSource not null, not started
   * @return this builder
   * @see DnsEndpointSource
   */
  public final B endpointSource(EndpointSource endpointSource) {
    this.endpointSource = endpointSource;
    return self();
  }

  /**
   * Limits, timeouts and health. Default {@link PoolConfig#defaults()}.
   *
   * @param config not null
   * @return this builder
   */
  public final B config(PoolConfig config) {
    this.config = config;
    return self();
  }

  /**
   * Receives pool events. Default {@link PoolMetrics#NONE}.
   *
   * @param metrics not null
   * @return this builder
   */
  public final B metrics(PoolMetrics metrics) {
    this.metrics = metrics;
    return self();
  }

  /**
   * An extra check of an idle connection before it is lent (when {@link
   * IdleConnectionsConfig#testOnBorrow()}) and by the evictor; {@code false} or an exception closes
   * the connection. It runs outside the pool's locks, and must not call the server unless the IDL
   * has a method meant for it. Default none: a connection is checked for being open and holding no
   * unread bytes.
   *
   * @param validator a check, or {@code null} for none
   * @return this builder
   */
  public final B validator(Predicate<? super V> validator) {
    this.validator = validator;
    return self();
  }

  /**
   * The interceptors that run around each Thrift call made through the pool, in order: the first
   * one's {@code beforeCall} runs first and its {@code afterCall} last (see {@link
   * ClientInterceptor}). A pool lambda that makes two calls makes two pairs. The context's {@link
   * io.thriftnio.core.ClientCallContext#remoteAddress()} is the endpoint the call went to. A call
   * an interceptor refuses writes nothing. Replaces any set before. Default: none; with none, a
   * call costs what it costs without this feature.
   *
   * <p>How each pool runs them: {@link ThriftClientPool} and {@link ThriftAsyncClientPool} decorate
   * each connection's protocol, so the call starts at the generated client's {@code
   * writeMessageBegin} (a refusal is thrown there, before any byte is written) and ends as its
   * reply is read to the end, or when the pool learns of its failure; {@link ThriftChannelPool}
   * reads each request's header once the endpoint is chosen, and the reply's outcome from its
   * bytes. The first two need a protocol whose generated code runs through a decorator: not {@code
   * TTupleProtocol} ({@code build()} refuses it). Channels whose {@link
   * io.thriftnio.core.ClientOptions} carry interceptors run theirs too, below the pool's.
   *
   * @param interceptors the chain, first to run first, empty for none; neither it nor an element
   *     may be {@code null}
   * @return this builder
   */
  public final B interceptors(List<? extends ClientInterceptor> interceptors) {
    this.interceptors = interceptors;
    return self();
  }

  /**
   * Declares the methods that may run twice: after a transport error (the connection broke or timed
   * out, so the request may have reached the server) a call of one of them is retried once on
   * another endpoint, taking the retry from the budget ({@link RetryBudgetConfig#ratio()}); {@link
   * ThriftChannelPool.Builder#hedgeAfter(java.time.Duration)} hedges only these. Calls of other
   * methods are never retried once their request may have been written; every call is retried,
   * within the budget, when its connect failed. Replaces any declaration before. Default: none.
   *
   * <p>The pool knows a call's method from the request ({@link ThriftChannelPool}) or from the
   * proxy method called ({@link ThriftClientPool#iface}, {@link ThriftAsyncClientPool#asyncIface}).
   * A lambda given to {@code call} on {@link ThriftClientPool} or {@link ThriftAsyncClientPool} may
   * make any call, or several: it is never retried after a write.
   *
   * @param methodNames the IDL names of the methods, as in the generated code ({@code "echo"});
   *     none for none
   * @return this builder
   */
  public final B idempotent(String... methodNames) {
    this.idempotentNames = methodNames == null ? new String[] {null} : methodNames.clone();
    this.idempotent = null;
    return self();
  }

  /**
   * Declares the methods that may run twice by a test of the method's name; see {@link
   * #idempotent(String...)}. Default: none.
   *
   * @param idempotent true for an idempotent method's name; {@code null} for none
   * @return this builder
   */
  public final B idempotent(Predicate<String> idempotent) {
    this.idempotent = idempotent;
    this.idempotentNames = null;
    return self();
  }

  /**
   * Whether a call made on a thread that runs a server call ({@link
   * io.thriftnio.core.ServerCallContext#currentIfAny()}, a handler calling downstream) ends by the
   * time that server call's caller stops waiting ({@link
   * io.thriftnio.core.ServerCallContext#timeRemaining()}, from its {@value
   * io.thriftnio.core.CallHeaders#CLIENT_TIMEOUT} header): the call's deadline is then the sooner
   * of its own ({@link PoolConfig#callDeadline()}, or the one given to the call) and that time, and
   * a call whose inherited deadline has passed already fails at once with a {@link
   * CallDeadlineException} that says so, without sending anything. Default {@code true}; a server
   * call without a deadline leaves the call's own.
   *
   * @param inheritDeadline {@code false} to keep each call's own deadline only
   * @return this builder
   */
  public final B inheritDeadline(boolean inheritDeadline) {
    this.inheritDeadline = inheritDeadline;
    return self();
  }

  /** Whether calls inherit the deadline of the server call their thread runs. */
  final boolean inheritDeadline() {
    return inheritDeadline;
  }

  /**
   * The settings of each connection the pool opens (connect and call timeouts, frame limit, TLS,
   * wire kind) and where its futures complete ({@link ClientOptions#callbackExecutor()}): one type
   * for every pool, the type single connections take. Each pool says which of them it uses; {@code
   * build()} refuses a setting the pool would ignore. Default {@link ClientOptions#defaults()}.
   *
   * @param options not null
   * @return this builder
   */
  public final B options(ClientOptions options) {
    this.options = options;
    return self();
  }

  /**
   * How long the pool keeps a connection: one that has lived this long (plus or minus {@value
   * ConnectionAge#JITTER_PERCENT}%, drawn per connection, so that connections opened together are
   * not reopened together) is closed between calls, never under one, and the next call opens
   * another to an endpoint chosen the normal way. Behind a load balancer that balances connections
   * (a Kubernetes Service), this spreads a long-lived pool over servers added since it connected.
   * {@link ThriftClientPool} and {@link ThriftAsyncClientPool} close such a connection when its
   * borrower gives it back; {@link ThriftChannelPool} gives it no new call and closes it when its
   * calls are done. Counted in {@link PoolStats#aged()}. Zero: connections are kept until they
   * fail, idle out or the pool closes. Default zero.
   *
   * @param maxConnectionAge {@code >= 0}
   * @return this builder
   */
  public final B maxConnectionAge(Duration maxConnectionAge) {
    this.maxConnectionAge = maxConnectionAge;
    return self();
  }

  /** The connections' age, zero for none. */
  final Duration maxConnectionAge() {
    return maxConnectionAge;
  }

  /**
   * Checks what every pool builder shares, at {@code build()}; setters only record.
   *
   * @throws IllegalArgumentException naming the first bad value, {@code name: value (expected:
   *     rule)}
   */
  final void checkShared() {
    Checks.notNull("protocolFactory", protocolFactory);
    for (int i = 0; i < endpoints.size(); i++) {
      Checks.notNull("endpoints[" + i + "]", endpoints.get(i));
    }
    Checks.notNull("config", config);
    Checks.notNull("metrics", metrics);
    Checks.notNull("options", options());
    Checks.nonNegative("maxConnectionAge", maxConnectionAge);
    interceptors = Checks.noNulls("interceptors", interceptors);
    if (idempotentNames != null) {
      Set<String> names = Set.copyOf(Checks.noNulls("methodNames", Arrays.asList(idempotentNames)));
      idempotent = names.isEmpty() ? null : names::contains;
      idempotentNames = null;
    }
  }

  /** The options given, or the defaults. */
  final ClientOptions options() {
    return options != null ? options : ClientOptions.defaults();
  }

  /** Whether {@link #options(ClientOptions)} was called. */
  final boolean optionsGiven() {
    return options != null;
  }

  /**
   * Refuses options a pool would ignore because something else opens its connections: TLS, a wire
   * kind other than framed (or than those {@code who} speaks), a path, interceptors (the pool's go
   * to {@link #interceptors(List)}).
   *
   * @param who what opens the connections, for the message
   * @param spoken the wire kinds {@code who} speaks besides {@code FRAMED}
   * @throws SettingException naming the setting
   */
  final void refuseConnectionSettings(String who, WireKind... spoken) {
    refuseConnectionSettings(options(), who, spoken);
  }

  /** {@link #refuseConnectionSettings(String, WireKind...)} of {@code o}. */
  static void refuseConnectionSettings(ClientOptions o, String who, WireKind... spoken) {
    List<WireKind> kinds = new ArrayList<>(List.of(WireKind.FRAMED));
    kinds.addAll(Arrays.asList(spoken));
    if (o.tls().isEmpty() && !kinds.contains(o.wireKind()) && spoken.length > 0) {
      throw new SettingException(
          "options.wireKind", o.wireKind(), "one of " + kinds + ", which " + who + " speaks");
    }
    String ignored =
        o.tls().isPresent()
            ? "tls"
            : !kinds.contains(o.wireKind())
                ? "wireKind"
                : !o.interceptors().isEmpty() ? "interceptors" : null;
    if (ignored != null) {
      Object value =
          ignored.equals("tls")
              ? o.tls().get()
              : ignored.equals("wireKind") ? o.wireKind() : o.interceptors();
      throw new SettingException(
          "options." + ignored,
          value,
          "unset: " + who + " opens the connections and would ignore it");
    }
  }

  /** The idempotent methods, {@code null} for none. */
  final Predicate<String> idempotentMethods() {
    return idempotent;
  }

  /**
   * The source the pool follows: the one given, or a fixed one of the endpoints given.
   *
   * @throws IllegalArgumentException if neither or both were given
   */
  final EndpointSource endpointSource() {
    if (endpointSource != null) {
      if (!endpoints.isEmpty()) {
        throw new SettingException(
            "endpoints",
            endpoints,
            "none with endpointSource " + endpointSource + "; add them to the source");
      }
      return endpointSource;
    }
    if (endpoints.isEmpty()) {
      throw new SettingException("endpoints", "[]", "at least one, or an endpointSource");
    }
    return EndpointSource.of(endpoints);
  }

  final TProtocolFactory protocolFactory() {
    return protocolFactory;
  }

  final PoolConfig config() {
    return config;
  }

  final PoolMetrics metrics() {
    return metrics;
  }

  final Predicate<? super V> validator() {
    return validator;
  }

  /** The interceptors, {@code null} for none. */
  final ClientInterception interception() {
    return ClientInterception.of(List.copyOf(interceptors));
  }
}
