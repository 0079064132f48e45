package io.thriftnio.core;

import io.thriftnio.core.sasl.ClientSasl;
import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.core.util.internal.Checks;
import io.thriftnio.core.util.internal.Framing;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;

/**
 * The settings of one client connection, the same on every transport: what {@link
 * ClientIo#openTransport} and {@link ClientIo#openChannel} take, and what every pool builder's
 * {@code options(..)} takes. Immutable; {@link #defaults()} or {@link #builder()}, and {@link
 * #toBuilder()} to derive one. Setters only record; {@link Builder#build()} checks every value at
 * once, so a bad value fails in one place with one message form ({@code name: value (expected:
 * rule)}).
 *
 * <pre>{@code
 * ClientOptions options = ClientOptions.builder()
 *     .connectTimeout(Duration.ofSeconds(2))
 *     .callTimeout(Duration.ofSeconds(5))
 *     .build();
 * TTransport transport = io.openTransport(address, options);
 * }</pre>
 */
public final class ClientOptions {
  /** Default {@link #connectTimeout()}: 10 seconds. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

  /** Default {@link #callTimeout()}: 30 seconds. */
  public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(30);

  /** Default {@link #lateReplyTimeout()} of a channel: 10 seconds. */
  public static final Duration DEFAULT_LATE_REPLY_TIMEOUT = Duration.ofSeconds(10);

  private static final ClientOptions DEFAULTS = builder().build();

  private final Duration connectTimeout;
  private final Duration callTimeout;
  private final Duration lateReplyTimeout;
  private final int maxFrameSize;
  private final int maxCallsInFlightPerConnection;
  private final Executor callbackExecutor;
  private final ClientTls tls;
  private final List<ClientInterceptor> interceptors;
  private final WireKind wireKind;
  private final String httpPath; // null: not set, the default path
  private final ClientSasl sasl;
  private final boolean argumentHeaders;

  private ClientOptions(Builder b) {
    this.connectTimeout = b.connectTimeout;
    this.callTimeout = b.callTimeout;
    this.lateReplyTimeout = b.lateReplyTimeout;
    this.maxFrameSize = b.maxFrameSize;
    this.maxCallsInFlightPerConnection = b.maxCallsInFlightPerConnection;
    this.callbackExecutor = b.callbackExecutor;
    this.tls = b.tls;
    this.interceptors = List.copyOf(b.interceptors);
    this.wireKind = b.wireKind;
    this.httpPath = b.httpPath;
    this.sasl = b.sasl;
    this.argumentHeaders = b.argumentHeaders;
  }

  /** Every default. */
  public static ClientOptions defaults() {
    return DEFAULTS;
  }

  /** A builder starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from these options: every setting, set or default, carries over. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.connectTimeout = connectTimeout;
    b.callTimeout = callTimeout;
    b.lateReplyTimeout = lateReplyTimeout;
    b.maxFrameSize = maxFrameSize;
    b.maxCallsInFlightPerConnection = maxCallsInFlightPerConnection;
    b.callbackExecutor = callbackExecutor;
    b.tls = tls;
    b.interceptors = interceptors;
    b.wireKind = wireKind;
    b.httpPath = httpPath;
    b.sasl = sasl;
    b.argumentHeaders = argumentHeaders;
    return b;
  }

  /** How long a connect, including a TLS handshake, may take. */
  public Duration connectTimeout() {
    return connectTimeout;
  }

  /**
   * How long one call may wait for its reply: on a channel, from the call until the whole reply has
   * arrived; on a sync transport, how long a read blocks. See {@link
   * Builder#callTimeout(Duration)}.
   */
  public Duration callTimeout() {
    return callTimeout;
  }

  /**
   * How long a channel that owes the reply of a timed-out call may receive no reply at all before
   * it is closed as stuck; see {@link Builder#lateReplyTimeout(Duration)}.
   */
  public Duration lateReplyTimeout() {
    return lateReplyTimeout;
  }

  /** The largest frame sent or accepted, in bytes, length prefix excluded. */
  public int maxFrameSize() {
    return maxFrameSize;
  }

  /**
   * Calls a channel lets wait for their responses at once, oneway messages not yet written
   * included.
   */
  public int maxCallsInFlightPerConnection() {
    return maxCallsInFlightPerConnection;
  }

  /** Where futures and callbacks complete. */
  public Executor callbackExecutor() {
    return callbackExecutor;
  }

  /** TLS for the connection, or empty for plain TCP. */
  public Optional<ClientTls> tls() {
    return Optional.ofNullable(tls);
  }

  /** The interceptors a channel runs around each call, first to run first; empty for none. */
  public List<ClientInterceptor> interceptors() {
    return interceptors;
  }

  /** How messages are delimited on the connection: framed, unframed, HTTP, THeader or SASL. */
  public WireKind wireKind() {
    return wireKind;
  }

  /** The path {@link WireKind#HTTP} posts calls to. */
  public String httpPath() {
    return httpPath != null ? httpPath : ServerBuilder.DEFAULT_HTTP_PATH;
  }

  /**
   * Whether each call's request headers also go in field 8888 of its arguments; see {@link
   * Builder#argumentHeaders(boolean)}.
   */
  public boolean argumentHeaders() {
    return argumentHeaders;
  }

  /** How a {@link WireKind#SASL} connection authenticates; empty for every other wire kind. */
  public Optional<ClientSasl> sasl() {
    return Optional.ofNullable(sasl);
  }

  @Override
  public String toString() {
    return "ClientOptions{connectTimeout="
        + connectTimeout
        + ", callTimeout="
        + callTimeout
        + ", maxFrameSize="
        + maxFrameSize
        + ", maxCallsInFlightPerConnection="
        + maxCallsInFlightPerConnection
        + ", tls="
        + (tls != null)
        + ", interceptors="
        + interceptors.size()
        + ", wireKind="
        + wireKind
        + (wireKind == WireKind.HTTP ? ", httpPath=" + httpPath() : "")
        + (sasl != null ? ", sasl=" + sasl : "")
        + (argumentHeaders ? ", argumentHeaders=true" : "")
        + '}';
  }

  /** Builds {@link ClientOptions}; {@link #build()} checks every value. */
  public static final class Builder {
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private Duration callTimeout = DEFAULT_CALL_TIMEOUT;
    private Duration lateReplyTimeout = DEFAULT_LATE_REPLY_TIMEOUT;
    private int maxFrameSize = Framing.DEFAULT_MAX_FRAME_SIZE;
    private int maxCallsInFlightPerConnection =
        ThriftChannel.DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CONNECTION;
    private Executor callbackExecutor = ForkJoinPool.commonPool();
    private ClientTls tls;
    private List<? extends ClientInterceptor> interceptors = List.of();
    private WireKind wireKind = WireKind.FRAMED;
    private String httpPath;
    private ClientSasl sasl;
    private boolean argumentHeaders;

    private Builder() {}

    /**
     * How long a connect, TLS handshake included, may take. Default {@link
     * #DEFAULT_CONNECT_TIMEOUT} (10 s).
     *
     * @param connectTimeout {@code > 0}
     * @return this builder
     */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = connectTimeout;
      return this;
    }

    /**
     * How long one call may wait for its reply. On a channel ({@link ClientIo#openChannel}), from
     * the call until its whole reply has arrived: when it passes, that call alone fails with a
     * {@code TTransportException} of type {@code TIMED_OUT}; the connection and its other calls
     * carry on, and the late reply is dropped when it comes (see {@link ThriftChannel}). On a sync
     * transport ({@link ClientIo#openTransport}, and the stock sockets of {@code
     * ThriftClientPool}), from the first read of a reply until the whole reply has arrived, however
     * its bytes are spread: when it passes, the call fails with a {@code TIMED_OUT} {@code
     * TTransportException} and the transport is closed, since a late reply could be taken for the
     * next call's. The stock {@code TAsyncClient}s of {@code ThriftAsyncClientPool} take it as
     * their timeout. Default {@link #DEFAULT_CALL_TIMEOUT} (30 s).
     *
     * @param callTimeout {@code > 0}
     * @return this builder
     */
    public Builder callTimeout(Duration callTimeout) {
      this.callTimeout = callTimeout;
      return this;
    }

    /**
     * How long a channel may receive no reply at all while it owes the reply of a timed-out call,
     * before it closes the connection as stuck and fails the calls still waiting on it. A server
     * that is merely slow to answer one call keeps the connection: each reply that arrives restarts
     * the wait. Pick it above the longest time a slow call may run past its timeout on a healthy
     * server. Default {@link #DEFAULT_LATE_REPLY_TIMEOUT} (10 s).
     *
     * @param lateReplyTimeout {@code > 0}
     * @return this builder
     */
    public Builder lateReplyTimeout(Duration lateReplyTimeout) {
      this.lateReplyTimeout = lateReplyTimeout;
      return this;
    }

    /**
     * The largest frame sent or accepted, length prefix excluded. A larger request fails before a
     * byte is written; a larger response closes the connection. Default 16,384,000 bytes,
     * libthrift's default.
     *
     * @param maxFrameSize bytes, {@code > 0}
     * @return this builder
     */
    public Builder maxFrameSize(int maxFrameSize) {
      this.maxFrameSize = maxFrameSize;
      return this;
    }

    /**
     * Calls a channel lets wait for responses at once; a call beyond it fails at once, nothing sent
     * (a {@code TTransportException} naming the calls pending and the limit), and the channel stays
     * usable. A oneway message counts until it is written, so a caller that sends faster than the
     * socket drains is refused rather than queued without bound. Default {@link
     * ThriftChannel#DEFAULT_MAX_CALLS_IN_FLIGHT_PER_CONNECTION} (1024).
     *
     * @param maxCallsInFlightPerConnection {@code > 0}
     * @return this builder
     */
    public Builder maxCallsInFlightPerConnection(int maxCallsInFlightPerConnection) {
      this.maxCallsInFlightPerConnection = maxCallsInFlightPerConnection;
      return this;
    }

    /**
     * Where futures complete and callbacks run, so that callers' continuations never run on an IO
     * thread: a channel's futures, and a pool's when the pool is given these options. Default
     * {@link ForkJoinPool#commonPool()}. A direct executor ({@code Runnable::run}) completes on the
     * IO thread: only for continuations that never block.
     *
     * @param callbackExecutor not null
     * @return this builder
     */
    public Builder callbackExecutor(Executor callbackExecutor) {
      this.callbackExecutor = callbackExecutor;
      return this;
    }

    /**
     * TLS for the connection. Default none (plain TCP).
     *
     * @param tls the client TLS settings, or {@code null} for plain TCP
     * @return this builder
     */
    public Builder tls(ClientTls tls) {
      this.tls = tls;
      return this;
    }

    /**
     * The interceptors a channel runs around each of its calls, in order: the first one's {@code
     * beforeCall} runs first and its {@code afterCall} last (see {@link ClientInterceptor}).
     * Replaces any set before. Default: none; with none, a call costs what it costs without this
     * feature.
     *
     * <p>A channel reads each request's message header from its bytes (compact, JSON, else binary)
     * for the method name and sequence id, and its reply's first bytes for the outcome. A sync
     * transport ({@link ClientIo#openTransport}) moves bytes without knowing where a message begins
     * and refuses options that carry interceptors: pool it with {@code ThriftClientPool} and give
     * the pool the interceptors.
     *
     * @param interceptors the chain, first to run first, empty for none; neither it nor an element
     *     may be {@code null}
     * @return this builder
     */
    public Builder interceptors(List<? extends ClientInterceptor> interceptors) {
      this.interceptors = interceptors;
      return this;
    }

    /**
     * How messages are delimited on the connection: {@link WireKind#FRAMED} (the default, what
     * {@code TFramedTransport} peers speak), {@link WireKind#UNFRAMED} (what a plain {@code
     * TSocket} or {@code TBufferedTransport} server speaks; replies are delimited by walking them
     * with their protocol's encoding: strict binary, compact or JSON), or {@link WireKind#HTTP} (a
     * {@code POST} of each call to {@link #httpPath(String)} over a keep-alive HTTP/1.1 connection,
     * as {@code THttpClient} does), or {@link WireKind#HEADER} (Apache Thrift's and fbthrift's
     * THeader: each request in a frame whose header names the message's protocol, binary or
     * compact, and carries the request's headers and {@value
     * ServerCallContext#CLIENT_TIMEOUT_HEADER}; replies are matched by the header's sequence id, so
     * a server may answer out of order), or {@link WireKind#SASL} (libthrift's {@code
     * TSaslClientTransport}: each connection negotiates with {@link #sasl(ClientSasl)}'s settings
     * before its first call, then sends frames, wrapped under {@code auth-int} and {@code
     * auth-conf}). {@link #maxFrameSize(int)} bounds each message whatever the wire kind. On
     * THeader, a call whose message is in a protocol THeader cannot name (JSON, non-strict binary)
     * fails before anything is sent.
     *
     * @param wireKind not null
     * @return this builder
     */
    public Builder wireKind(WireKind wireKind) {
      this.wireKind = wireKind;
      return this;
    }

    /**
     * Whether each call's request headers (those its interceptors set, over a {@code
     * HeaderScope}'s) also go inside the request, as a {@code map<string,string>} in field 8888 of
     * its arguments struct: where OpenTelemetry's Java agent (its Thrift instrumentation) and
     * SkyWalking read the trace context of a call, on every wire kind, framed and unframed
     * included. Default {@code false}: headers go only where the wire kind carries them (THeader
     * info headers, HTTP header fields), and framed and unframed calls carry none.
     *
     * <p>Turn it on only for servers that skip a field they do not know (every processor generated
     * by the Thrift compiler does) or read this one (a thrift-nio server, through {@code
     * ServerCallContext.argumentHeaders()}; a libthrift server under the agent): a hand-written
     * processor that rejects unknown fields would fail the calls. Applies to strict binary and
     * compact messages; a JSON or non-strict binary call goes without. On THeader and HTTP the
     * headers then travel twice, in the wire's headers and in the arguments.
     *
     * @param argumentHeaders whether to send the headers in the arguments too
     * @return this builder
     */
    public Builder argumentHeaders(boolean argumentHeaders) {
      this.argumentHeaders = argumentHeaders;
      return this;
    }

    /**
     * The path a {@link WireKind#HTTP} connection posts its calls to, e.g. {@code /thrift}. Only
     * with {@code HTTP}: {@link #build()} refuses a path for another wire kind, which would ignore
     * it. Default {@value ServerBuilder#DEFAULT_HTTP_PATH}.
     *
     * @param httpPath an absolute path: starts with {@code /}, no spaces or control characters
     * @return this builder
     */
    public Builder httpPath(String httpPath) {
      this.httpPath = httpPath;
      return this;
    }

    /**
     * How each connection authenticates with SASL: required with {@link WireKind#SASL}, refused
     * with any other wire kind by {@link #build()}. Every connection opened with these options
     * negotiates before it is handed out (a channel's or a sync transport's open returns after the
     * server's {@code COMPLETE}) and fails its open with a {@link
     * io.thriftnio.core.sasl.SaslNegotiationException} otherwise. Default none.
     *
     * @param sasl the mechanism and credentials, or {@code null} for none
     * @return this builder
     */
    public Builder sasl(ClientSasl sasl) {
      this.sasl = sasl;
      return this;
    }

    /**
     * Checks every value and builds the options.
     *
     * @return the options
     * @throws SettingException naming the first value out of range, in the form {@code name: value
     *     (expected: rule)}, or a setting the others contradict: an {@code httpPath} without {@code
     *     HTTP}, {@code SASL} without {@code sasl} or {@code sasl} without {@code SASL}
     */
    public ClientOptions build() {
      Checks.positive("connectTimeout", connectTimeout);
      Checks.positive("callTimeout", callTimeout);
      Checks.positive("lateReplyTimeout", lateReplyTimeout);
      Checks.positive("maxFrameSize", maxFrameSize);
      Checks.positive("maxCallsInFlightPerConnection", maxCallsInFlightPerConnection);
      Checks.notNull("callbackExecutor", callbackExecutor);
      interceptors = Checks.noNulls("interceptors", interceptors);
      Checks.notNull("wireKind", wireKind);
      ClientOptionsChecks.httpPath(httpPath, wireKind);
      ClientOptionsChecks.sasl(sasl, wireKind);
      return new ClientOptions(this);
    }
  }
}
