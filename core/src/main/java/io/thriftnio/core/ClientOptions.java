package io.thriftnio.core;

import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.core.util.internal.Checks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;

/**
 * The settings of one client connection, the same on every transport: what {@link
 * ClientResources#openTransport} and {@link ClientResources#openChannel} take. Immutable; {@link
 * #defaults()} or {@link #builder()}, and {@link #toBuilder()} to derive one.
 *
 * <pre>{@code
 * ClientOptions options = ClientOptions.builder()
 *     .connectTimeout(Duration.ofSeconds(2))
 *     .requestTimeout(Duration.ofSeconds(5))
 *     .build();
 * TTransport transport = resources.openTransport(address, options);
 * }</pre>
 */
public final class ClientOptions {
  /** Default {@link #connectTimeout()}: 10 seconds. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

  /** Default {@link #readTimeout()} of a sync transport: 30 seconds. */
  public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(30);

  /** Default {@link #requestTimeout()} of a channel call: 30 seconds. */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);

  /** Default {@link #lateReplyTimeout()} of a channel: 10 seconds. */
  public static final Duration DEFAULT_LATE_REPLY_TIMEOUT = Duration.ofSeconds(10);

  private static final ClientOptions DEFAULTS = builder().build();

  private final Duration connectTimeout;
  private final Duration readTimeout;
  private final Duration requestTimeout;
  private final Duration lateReplyTimeout;
  private final int maxFrameSize;
  private final int maxPendingCalls;
  private final Executor callbackExecutor;
  private final ClientTls tls;
  private final List<ClientInterceptor> interceptors;
  private final WireTransport transport;
  private final String httpPath;

  private ClientOptions(Builder b) {
    this.connectTimeout = b.connectTimeout;
    this.readTimeout = b.readTimeout;
    this.requestTimeout = b.requestTimeout;
    this.lateReplyTimeout = b.lateReplyTimeout;
    this.maxFrameSize = b.maxFrameSize;
    this.maxPendingCalls = b.maxPendingCalls;
    this.callbackExecutor = b.callbackExecutor;
    this.tls = b.tls;
    this.interceptors = List.copyOf(b.interceptors);
    this.transport = b.transport;
    this.httpPath = b.httpPath;
  }

  /** Every default. */
  public static ClientOptions defaults() {
    return DEFAULTS;
  }

  /** A builder starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from these options. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.connectTimeout = connectTimeout;
    b.readTimeout = readTimeout;
    b.requestTimeout = requestTimeout;
    b.maxFrameSize = maxFrameSize;
    b.maxPendingCalls = maxPendingCalls;
    b.callbackExecutor = callbackExecutor;
    b.tls = tls;
    b.interceptors = new ArrayList<>(interceptors);
    b.transport = transport;
    b.httpPath = httpPath;
    return b;
  }

  /** How long a connect, including a TLS handshake, may take. */
  public Duration connectTimeout() {
    return connectTimeout;
  }

  /** How long a sync transport's read waits for its response frame. */
  public Duration readTimeout() {
    return readTimeout;
  }

  /** How long a channel call may take from the call until its whole response has arrived. */
  public Duration requestTimeout() {
    return requestTimeout;
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
  public int maxPendingCalls() {
    return maxPendingCalls;
  }

  /** Where a channel's futures complete. */
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

  /** How messages are delimited on the connection; {@link WireTransport#FRAMED} by default. */
  public WireTransport transport() {
    return transport;
  }

  /** The path an {@link WireTransport#HTTP} connection posts its calls to; {@code /} by default. */
  public String httpPath() {
    return httpPath;
  }

  @Override
  public String toString() {
    return "ClientOptions{connectTimeout="
        + connectTimeout
        + ", readTimeout="
        + readTimeout
        + ", requestTimeout="
        + requestTimeout
        + ", lateReplyTimeout="
        + lateReplyTimeout
        + ", maxFrameSize="
        + maxFrameSize
        + ", maxPendingCalls="
        + maxPendingCalls
        + ", tls="
        + (tls != null)
        + ", interceptors="
        + interceptors.size()
        + ", transport="
        + transport
        + (transport == WireTransport.HTTP ? ", httpPath=" + httpPath : "")
        + "}";
  }

  /** Builds {@link ClientOptions}; every value is checked when set. */
  public static final class Builder {
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private Duration readTimeout = DEFAULT_READ_TIMEOUT;
    private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
    private Duration lateReplyTimeout = DEFAULT_LATE_REPLY_TIMEOUT;
    private int maxFrameSize = Framing.DEFAULT_MAX_FRAME_SIZE;
    private int maxPendingCalls = ThriftChannel.DEFAULT_MAX_PENDING_CALLS;
    private Executor callbackExecutor = ForkJoinPool.commonPool();
    private ClientTls tls;
    private List<ClientInterceptor> interceptors = new ArrayList<>();
    private WireTransport transport = WireTransport.FRAMED;
    private String httpPath = ServerBuilder.DEFAULT_HTTP_PATH;

    private Builder() {}

    /**
     * How long a connect, TLS handshake included, may take. Default {@link
     * #DEFAULT_CONNECT_TIMEOUT} (10 s).
     *
     * @param connectTimeout {@code > 0}
     * @return this builder
     */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = Checks.positive("connectTimeout", connectTimeout);
      return this;
    }

    /**
     * How long a sync transport's {@code read} waits for a response frame; the transport is closed
     * when it passes, since a late response could be taken for the next call's. Default {@link
     * #DEFAULT_READ_TIMEOUT} (30 s).
     *
     * @param readTimeout {@code > 0}
     * @return this builder
     */
    public Builder readTimeout(Duration readTimeout) {
      this.readTimeout = Checks.positive("readTimeout", readTimeout);
      return this;
    }

    /**
     * How long a channel call may take, from the call until its whole response has arrived. When it
     * passes, that call alone fails with a {@link CallTimeoutException}; the connection and its
     * other calls carry on, and the late reply is dropped when it comes (see {@link
     * ThriftChannel}). Default {@link #DEFAULT_REQUEST_TIMEOUT} (30 s).
     *
     * @param requestTimeout {@code > 0}
     * @return this builder
     */
    public Builder requestTimeout(Duration requestTimeout) {
      this.requestTimeout = Checks.positive("requestTimeout", requestTimeout);
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
      this.lateReplyTimeout = Checks.positive("lateReplyTimeout", lateReplyTimeout);
      return this;
    }

    /**
     * The largest frame sent or accepted, length prefix excluded. A larger request fails before a
     * byte is written; a larger response closes the connection. Default {@link
     * Framing#DEFAULT_MAX_FRAME_SIZE} (16,384,000 bytes, libthrift's default).
     *
     * @param maxFrameSize bytes, {@code > 0}
     * @return this builder
     */
    public Builder maxFrameSize(int maxFrameSize) {
      this.maxFrameSize = Checks.positive("maxFrameSize", maxFrameSize);
      return this;
    }

    /**
     * Calls a channel lets wait for responses at once; a call beyond it fails at once with {@link
     * TooManyPendingCallsException} and the channel stays usable. A oneway message counts until it
     * is written, so a caller that sends faster than the socket drains is refused rather than
     * queued without bound. Default {@link ThriftChannel#DEFAULT_MAX_PENDING_CALLS} (1024).
     *
     * @param maxPendingCalls {@code > 0}
     * @return this builder
     */
    public Builder maxPendingCalls(int maxPendingCalls) {
      this.maxPendingCalls = Checks.positive("maxPendingCalls", maxPendingCalls);
      return this;
    }

    /**
     * Where a channel completes its futures, so that callers' continuations never run on an IO
     * thread. Default {@link ForkJoinPool#commonPool()}. A direct executor ({@code Runnable::run})
     * completes on the IO thread: only for continuations that never block.
     *
     * @param callbackExecutor not null
     * @return this builder
     */
    public Builder callbackExecutor(Executor callbackExecutor) {
      this.callbackExecutor = Checks.notNull("callbackExecutor", callbackExecutor);
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
     * for the method name and sequence id, and its reply's first bytes for the outcome. They apply
     * to channels ({@link ClientResources#openChannel}); a sync transport ({@link
     * ClientResources#openTransport}) moves bytes without knowing where a message begins and does
     * not run them: pool it with {@code ThriftClientPool} and give the pool the interceptors.
     *
     * @param interceptors the chain, first to run first, empty for none; neither it nor an element
     *     may be {@code null}
     * @return this builder
     */
    public Builder interceptors(List<? extends ClientInterceptor> interceptors) {
      this.interceptors = new ArrayList<>(Checks.noNulls("interceptors", interceptors));
      return this;
    }

    /**
     * How messages are delimited on the connection: {@link WireTransport#FRAMED} (the default, what
     * {@code TFramedTransport} peers speak), {@link WireTransport#UNFRAMED} (what a plain {@code
     * TSocket} or {@code TBufferedTransport} server speaks; replies are delimited by walking them
     * with their protocol's encoding: strict binary, compact or JSON), or {@link
     * WireTransport#HTTP} (a {@code POST} of each call to {@link #httpPath(String)} over a
     * keep-alive HTTP/1.1 connection, as {@code THttpClient} does). {@link #maxFrameSize(int)}
     * bounds each message whatever the transport. {@link WireTransport#HEADER} is served, not yet
     * spoken by clients, and is refused.
     *
     * @param transport not null, not {@code HEADER}
     * @return this builder
     * @throws IllegalArgumentException for {@link WireTransport#HEADER}
     */
    public Builder transport(WireTransport transport) {
      if (Checks.notNull("transport", transport) == WireTransport.HEADER) {
        throw new IllegalArgumentException(
            "transport: HEADER (expected: FRAMED, UNFRAMED or HTTP; THeader clients are not"
                + " available yet)");
      }
      this.transport = transport;
      return this;
    }

    /**
     * The path an {@link WireTransport#HTTP} connection posts its calls to, e.g. {@code /thrift}.
     * Ignored by the other transports. Default {@value ServerBuilder#DEFAULT_HTTP_PATH}.
     *
     * @param httpPath an absolute path: starts with {@code /}, no spaces or control characters
     * @return this builder
     */
    public Builder httpPath(String httpPath) {
      Checks.notNull("httpPath", httpPath);
      boolean ok = httpPath.startsWith("/");
      for (int i = 0; ok && i < httpPath.length(); i++) {
        char c = httpPath.charAt(i);
        ok = c > ' ' && c < 0x7f;
      }
      if (!ok) {
        throw new IllegalArgumentException(
            "httpPath: \""
                + httpPath
                + "\" (expected: an absolute path, starting with /, of visible ASCII characters)");
      }
      this.httpPath = httpPath;
      return this;
    }

    /** The options. */
    public ClientOptions build() {
      return new ClientOptions(this);
    }
  }
}
