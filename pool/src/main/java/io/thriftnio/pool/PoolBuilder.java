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
 * The settings every pool has, each set here and only here: where the connections go ({@link
 * #endpoints}, {@link #endpointSource}), the protocol and each connection's {@link #options}, the
 * limits and waits ({@link #maxTotal}, {@link #borrowTimeout}, {@link #callDeadline}, ...), the
 * upkeep of idle connections, endpoint health and the retry budget, the interceptors, metrics and
 * an optional check of idle connections. {@link ThriftClientPool.Builder}, {@link
 * ThriftAsyncClientPool.Builder} and {@link ThriftChannelPool.Builder} add what only their pool
 * has. Every setter records its value; {@code build()} checks them all and names the first it
 * refuses in a {@link SettingException} ({@code setting: value (expected: rule)}), the setting
 * being the setter's name.
 *
 * <p>Setters replace: a second call of a setter, plural ones ({@link #endpoints}, {@link
 * #interceptors}, {@link #idempotent(String...)}) included, keeps the second value only.
 *
 * <p>One base type rather than the same setters written three times: the settings are the same
 * settings for each pool, and code that configures any pool (a framework, a test helper) takes a
 * {@code PoolBuilder<?, ?>}.
 *
 * @param <V> what the validator checks: the pooled client or channel
 * @param <B> the concrete builder, returned by each setter
 */
public abstract class PoolBuilder<V, B extends PoolBuilder<V, B>> {
  private final List<InetSocketAddress> endpoints = new ArrayList<>();
  private EndpointSource endpointSource;
  private TProtocolFactory protocolFactory = new TBinaryProtocol.Factory();
  private final PoolConfig.Builder limits = PoolConfig.builder();
  private final IdleConnectionsConfig.Builder idle = IdleConnectionsConfig.builder();
  private final RetryBudgetConfig.Builder retryBudget = RetryBudgetConfig.builder();
  private final EndpointHealthConfig.Builder health = EndpointHealthConfig.builder();
  private PoolConfig config; // built by checkShared()
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
   * The endpoints, a fixed list ({@link EndpointSource#of(List)}); replaces any given before. These
   * or an {@link #endpointSource(EndpointSource)} are required; no default.
   *
   * @param endpoints at least one, none {@code null}
   * @return this builder
   */
  public final B endpoints(InetSocketAddress... endpoints) {
    this.endpoints.clear();
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
   * serves one pool. Instead of {@link #endpoints(InetSocketAddress...)}; no default.
   *
   * @param endpointSource not null, not started
   * @return this builder
   * @see EndpointSource#dns(String, int, java.time.Duration)
   */
  public final B endpointSource(EndpointSource endpointSource) {
    this.endpointSource = endpointSource;
    return self();
  }

  /**
   * Opt-in client-side backpressure: bounds the pool's calls in flight (from a call's start, before
   * it waits for a connection, to its end, retries included) with a delay-based adaptive limit, the
   * algorithm of the server's {@code adaptiveLimit} (Netflix concurrency-limits' {@code
   * Gradient2Limit}). It starts at {@code min(20, maxCallsInFlight)}, falls when the pool's calls
   * take longer than their long-run average or servers refuse them as overloaded, rises while calls
   * are quick and the limit is in use, never goes below its start or above {@code
   * maxCallsInFlight}. A call that finds the limit reached fails at once, before anything is sent,
   * with a {@link PoolException} {@code "pool 'orders': call refused at the adaptive limit
   * (limit=24 reached, max 200): the pool's calls are slower than usual"}: the caller sheds load
   * instead of queueing it. One limit for the whole pool, across its endpoints. Needs {@code
   * com.netflix.concurrency-limits:concurrency-limits-core} (0.5.4) on the class path; {@code
   * build()} says so if it is missing. Default: off.
   *
   * @param maxCallsInFlight the highest the limit may go, {@code > 0}
   * @return this builder
   */
  public final B adaptiveLimit(int maxCallsInFlight) {
    limits.adaptiveLimit(maxCallsInFlight);
    return self();
  }

  /**
   * Connections across all endpoints, in use or idle. Default {@value
   * PoolConfig#DEFAULT_MAX_TOTAL}.
   *
   * @param maxTotal {@code > 0}
   * @return this builder
   */
  public final B maxTotal(int maxTotal) {
    limits.maxTotal(maxTotal);
    return self();
  }

  /**
   * Connections to one endpoint, in use or idle. Default {@value
   * PoolConfig#DEFAULT_MAX_PER_ENDPOINT}.
   *
   * @param maxPerEndpoint {@code > 0}
   * @return this builder
   */
  public final B maxPerEndpoint(int maxPerEndpoint) {
    limits.maxPerEndpoint(maxPerEndpoint);
    return self();
  }

  /**
   * Idle connections kept per endpoint; a connection returned beyond this is closed. Not used by
   * {@link ThriftChannelPool} (a shared connection is idle only between calls). Default {@value
   * PoolConfig#DEFAULT_MAX_IDLE_PER_ENDPOINT}.
   *
   * @param maxIdlePerEndpoint {@code >= 0}, {@code <= maxPerEndpoint}, {@code >=
   *     minIdlePerEndpoint}
   * @return this builder
   */
  public final B maxIdlePerEndpoint(int maxIdlePerEndpoint) {
    limits.maxIdlePerEndpoint(maxIdlePerEndpoint);
    return self();
  }

  /**
   * How long a call waits for a connection when the limits are reached and none is free; then it
   * fails with {@link PoolTimeoutException}. Zero fails at once. Default 5 s.
   *
   * @param borrowTimeout {@code >= 0}
   * @return this builder
   */
  public final B borrowTimeout(Duration borrowTimeout) {
    limits.borrowTimeout(borrowTimeout);
    return self();
  }

  /**
   * Calls of an async pool ({@link ThriftChannelPool}, {@link ThriftAsyncClientPool}) that may wait
   * at once for a connection, in a queue served in arrival order; the call that finds the queue
   * full fails at once with a {@link PoolException} naming the limit. A call that must wait for a
   * connect waits in the queue too, so at least one place is needed; to fail at once instead of
   * waiting for a busy connection, set {@link #borrowTimeout(Duration)} to zero. The sync {@link
   * ThriftClientPool} does not use it (its callers wait on their own threads). Default {@value
   * PoolConfig#DEFAULT_BORROW_QUEUE_CAPACITY}: room for a burst of that many callers, while a
   * caller that outruns the servers for good fails fast instead of growing the heap.
   *
   * @param borrowQueueCapacity {@code > 0}
   * @return this builder
   */
  public final B borrowQueueCapacity(int borrowQueueCapacity) {
    limits.borrowQueueCapacity(borrowQueueCapacity);
    return self();
  }

  /**
   * How the endpoint of the next call is chosen. Default {@link Balancer#POWER_OF_TWO_CHOICES}.
   *
   * @param balancer not null
   * @return this builder
   */
  public final B balancer(Balancer balancer) {
    limits.balancer(balancer);
    return self();
  }

  /**
   * Registers the pool with JMX under this name prefix. Default {@code null}: no JMX registration.
   *
   * @param jmxName a name usable in a JMX {@code ObjectName}, or {@code null}
   * @return this builder
   */
  public final B jmxName(String jmxName) {
    limits.jmxName(jmxName);
    return self();
  }

  /**
   * The time a call may take in all: waiting for a connection (and connecting), its retries, and
   * the call itself until its reply. When it passes, the call fails with a {@link
   * CallDeadlineException} that says whether it was still waiting for a connection or in the call,
   * with the pool state; that class says how each pool ends a call in flight. {@link
   * ThriftClientPool#lease()} is not bounded. Zero: no deadline; the borrow timeout and the
   * connection's timeouts bound the parts. One call may carry its own deadline instead (the {@code
   * call(Duration, ...)} methods of each pool), in place of this one. Default zero.
   *
   * @param callDeadline {@code >= 0}
   * @return this builder
   */
  public final B callDeadline(Duration callDeadline) {
    limits.callDeadline(callDeadline);
    return self();
  }

  /**
   * How long a connection may sit idle before the evictor closes it. Zero keeps idle connections
   * forever. Default 10 min.
   *
   * @param idleTimeout {@code >= 0}
   * @return this builder
   */
  public final B idleTimeout(Duration idleTimeout) {
    idle.timeout(idleTimeout);
    return self();
  }

  /**
   * Time between evictor runs, which close connections idle for longer than {@link
   * #idleTimeout(Duration)}, validate the others and top up {@link #minIdlePerEndpoint(int)}. Zero
   * turns the evictor off. Default 30 s.
   *
   * @param evictionInterval {@code >= 0}
   * @return this builder
   */
  public final B evictionInterval(Duration evictionInterval) {
    idle.evictionInterval(evictionInterval);
    return self();
  }

  /**
   * Idle connections the evictor opens and keeps per endpoint (needs a non-zero {@link
   * #evictionInterval(Duration)}); not used by {@link ThriftChannelPool}. Default 0.
   *
   * @param minIdlePerEndpoint {@code >= 0}, {@code <= maxIdlePerEndpoint}
   * @return this builder
   */
  public final B minIdlePerEndpoint(int minIdlePerEndpoint) {
    idle.minPerEndpoint(minIdlePerEndpoint);
    return self();
  }

  /**
   * Whether an idle connection is checked before it is lent: open, no unread bytes, the peer has
   * not closed it (where the transport lets us look without blocking), and the {@link
   * #validator(Predicate)}, if any. No request is sent. Default {@code true}.
   *
   * @param testOnBorrow whether to check on borrow
   * @return this builder
   */
  public final B testOnBorrow(boolean testOnBorrow) {
    idle.testOnBorrow(testOnBorrow);
    return self();
  }

  /**
   * The share of recent calls that may be retried on another endpoint: over the last {@link
   * #retryBudgetWindow(Duration)}, a pool retries at most {@code ratio × calls +
   * retryBudgetMinPerSecond × window seconds} times. Zero, with {@link
   * #retryBudgetMinPerSecond(int)} zero, turns retries off. Default 0.1.
   *
   * @param ratio retries per call, {@code >= 0} and {@code <= 1000}
   * @return this builder
   */
  public final B retryBudgetRatio(double ratio) {
    retryBudget.ratio(ratio);
    return self();
  }

  /**
   * Retries per second a pool may make whatever its number of calls, the retry budget's floor (see
   * {@link #retryBudgetRatio(double)}); a reserve over the window: with the defaults, up to 100
   * retries in 10 s on top of the share of calls. Default 10.
   *
   * @param minPerSecond retries per second, {@code >= 0}
   * @return this builder
   */
  public final B retryBudgetMinPerSecond(int minPerSecond) {
    retryBudget.minRetriesPerSecond(minPerSecond);
    return self();
  }

  /**
   * The sliding window over which the retry budget counts calls and retries, kept in ten slices:
   * counts older than the window are forgotten one slice at a time. Default 10 s.
   *
   * @param window {@code >= 10ms}
   * @return this builder
   */
  public final B retryBudgetWindow(Duration window) {
    retryBudget.window(window);
    return self();
  }

  /**
   * How long an endpoint is skipped after it failed to connect; each consecutive failure doubles
   * it, up to {@link #maxBackoff(Duration)}. When the time is up, one call probes the endpoint by
   * connecting to it; exactly one probe at a time goes to a down endpoint, and only a probe that
   * gets a connection brings it back. Each back-off is drawn at random from the 20% below its value
   * (1 s: between 0.8 and 1 s), so that clients that lost an endpoint together do not probe it in
   * step. Default 1 s.
   *
   * @param backoff {@code > 0}
   * @return this builder
   */
  public final B backoff(Duration backoff) {
    health.backoff(backoff);
    return self();
  }

  /**
   * The longest an endpoint is skipped after consecutive connect failures: the ceiling of the
   * doubling back-off, so a down endpoint is probed again no later than this after its last
   * failure. While every endpoint is down a pool refuses calls at once ({@link PoolException}), so
   * after a long outage callers may be refused for up to this long after the server accepts again;
   * a longer ceiling spares a dead endpoint at that cost. Ejected endpoints have their own ceiling,
   * {@link #maxEjectionBackoff(Duration)}. Default 2 s.
   *
   * @param maxBackoff {@code >= backoff}
   * @return this builder
   */
  public final B maxBackoff(Duration maxBackoff) {
    health.maxBackoff(maxBackoff);
    return self();
  }

  /**
   * The longest an ejected endpoint ({@link #ejectAfterConsecutiveFailures(int)}) is skipped: the
   * back-off doubles from {@link #backoff(Duration)} with each ejection that follows without a
   * successful call in between, up to this. An ejected endpoint accepts connections but fails
   * calls, so it is kept out longer than a dead one. Default 30 s.
   *
   * @param maxEjectionBackoff {@code >= backoff}
   * @return this builder
   */
  public final B maxEjectionBackoff(Duration maxEjectionBackoff) {
    health.maxEjectionBackoff(maxEjectionBackoff);
    return self();
  }

  /**
   * Outlier ejection: an endpoint whose calls fail in transport this many times in a row
   * (connection closed or reset, timed out, reply out of step; not declared IDL exceptions nor
   * {@code TApplicationException}s, which are answers) is taken out as a failed connect takes it
   * out, for {@link #backoff(Duration)} doubling up to {@link #maxEjectionBackoff(Duration)}; then
   * one call probes it. Counted in {@link PoolStats#ejections()}. The last endpoint up is never
   * ejected. Zero turns ejection off. Default 5.
   *
   * @param ejectAfterConsecutiveFailures {@code >= 0}
   * @return this builder
   */
  public final B ejectAfterConsecutiveFailures(int ejectAfterConsecutiveFailures) {
    health.ejectAfterConsecutiveFailures(ejectAfterConsecutiveFailures);
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
   * An extra check of an idle connection before it is lent (when {@link #testOnBorrow(boolean)})
   * and by the evictor; {@code false} or an exception closes the connection. It runs outside the
   * pool's locks, and must not call the server unless the IDL has a method meant for it. Default
   * none: a connection is checked for being open and holding no unread bytes.
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
   * TTupleProtocol} ({@code build()} refuses it). This is a pool's one place for interceptors:
   * {@code build()} refuses {@link #options(ClientOptions)} that carry their own. (Channels that a
   * {@code ClientIo} of your own opens with interceptors of their own run them too, below the
   * pool's.)
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
   * another endpoint, taking the retry from the budget ({@link #retryBudgetRatio(double)}); {@link
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
   * io.thriftnio.core.ServerCallContext#CLIENT_TIMEOUT_HEADER} header): the call's deadline is then
   * the sooner of its own ({@link #callDeadline(Duration)}, or the one given to the call) and that
   * time, and a call whose inherited deadline has passed already fails at once with a {@link
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
    config =
        limits
            .idleConnections(idle.build())
            .retryBudget(retryBudget.build())
            .endpointHealth(health.build())
            .build();
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
