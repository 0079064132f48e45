package io.thriftnio.core;

import io.thriftnio.core.sasl.SaslIdentity;
import io.thriftnio.core.util.internal.ArgumentHeaders;
import io.thriftnio.core.util.internal.CallConnection;
import io.thriftnio.core.util.internal.ClientTimeouts;
import io.thriftnio.core.util.internal.ContextAccess;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.security.Principal;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.apache.thrift.protocol.TProtocolFactory;

/**
 * The call a server is serving: who called (addresses, TLS peer), on which connection, which method
 * with which sequence id, and when it arrived; plus attributes that {@link ServerInterceptor}s
 * attach for the handler.
 *
 * <p>A synchronous handler ({@code Iface}) gets it with {@link #current()}, on every {@link
 * IoStrategy}:
 *
 * <pre>{@code
 * public String whoAmI() {
 *   return String.valueOf(ServerCallContext.current().remoteAddress());
 * }
 * }</pre>
 *
 * <p>An asynchronous handler ({@code AsyncIface}) calls {@link #current()} when its method is
 * called, on that thread, and carries the object to wherever it completes: the context stays valid,
 * and readable from any thread, after the call.
 *
 * <p>{@link #current()} is set only on the thread running a call, only while the processor runs it;
 * it never leaks to the next call of a pooled thread. With no interceptor configured, the object is
 * created only when {@link #current()} is first asked during the call, and a handler that never
 * asks costs nothing. Thread-safe.
 */
public final class ServerCallContext extends AbstractCallContext {

  /**
   * The header that carries the caller's deadline: {@value}. The time the caller waits for the
   * reply, in whole milliseconds, as a decimal string; sent by this library's clients with every
   * request on connections that carry headers (THeader, HTTP), and read by servers into {@link
   * #deadline()}. The name and unit fbthrift's header clients use.
   */
  public static final String CLIENT_TIMEOUT_HEADER = ClientTimeouts.HEADER;

  static {
    ContextAccess.install(new EngineAccess());
  }

  private final CallConnection<SaslIdentity> connection;
  private final long connectionId;
  private final long receivedAtNanos;
  private final long queuedNanos;
  private final TProtocolFactory protocolFactory;
  private final Map<String, String> headers;

  // The request's bytes while interceptors' beforeCall run, for argumentHeaders(); dropped before
  // the processor reads them (their buffer may be reused once the call is read). Confined to the
  // thread that runs the beforeCalls.
  private ByteBuffer arguments;
  private Map<String, String> argumentHeaders;

  // Set once where the context is created, before anything else sees it; read by interceptors and
  // the handler after the hand-over that publishes the context (InvokerCall).
  /** {@link System#nanoTime()} by which the caller stops waiting; meaningful if hasDeadline. */
  private long deadlineNanos;

  private boolean hasDeadline;

  // Set by the thread that ends the call, before the afterCalls it runs; volatile for a reader on
  // another thread (the context stays readable after the call).
  private volatile Throwable failure;

  ServerCallContext(
      CallConnection<SaslIdentity> connection,
      long connectionId,
      long receivedAtNanos,
      long queuedNanos,
      String methodName,
      int seqId,
      byte messageType,
      TProtocolFactory protocolFactory,
      Map<String, String> headers) {
    super(methodName, seqId, messageType);
    this.queuedNanos = queuedNanos;
    this.headers = headers;
    this.connection = connection;
    this.connectionId = connectionId;
    this.receivedAtNanos = receivedAtNanos;
    this.protocolFactory = protocolFactory;
  }

  /**
   * The context of the call the current thread is running.
   *
   * @throws IllegalStateException if the current thread is not running a call of a thrift-nio
   *     server right now
   */
  public static ServerCallContext current() {
    ServerCallContext context = currentContext();
    if (context == null) {
      throw new IllegalStateException(
          "ServerCallContext.current() called on thread "
              + Thread.currentThread().getName()
              + ", which is not running a Thrift call: the context is set only while a handler's"
              + " method runs on the thread that called it (an async handler must take it when"
              + " its method is called and carry it to where it completes)");
    }
    return context;
  }

  /** The caller's address; {@code null} if the transport does not know it. */
  public SocketAddress remoteAddress() {
    return connection == null ? null : connection.remoteAddress();
  }

  /** The server's address of this connection; {@code null} if the transport does not know it. */
  public SocketAddress localAddress() {
    return connection == null ? null : connection.localAddress();
  }

  /**
   * Who the connection authenticated as by SASL ({@link WireKind#SASL}): the mechanism, the
   * authorization id and the quality of protection; empty on every other kind.
   */
  public Optional<SaslIdentity> sasl() {
    return Optional.ofNullable(connection == null ? null : connection.saslIdentity());
  }

  /** The connection's TLS session, once its handshake is done; empty for plain TCP. */
  public Optional<SSLSession> tlsSession() {
    return Optional.ofNullable(connection == null ? null : connection.tlsSession());
  }

  /**
   * The certificate the TLS peer authenticated with (the first of its chain); empty for plain TCP
   * or a client that sent none (client authentication {@code NONE} or {@code OPTIONAL}).
   */
  public Optional<X509Certificate> peerCertificate() {
    Certificate[] chain = peerCertificates();
    return chain.length > 0 && chain[0] instanceof X509Certificate
        ? Optional.of((X509Certificate) chain[0])
        : Optional.empty();
  }

  /**
   * The TLS peer's authenticated identity, for an X.509 certificate its subject ({@code
   * javax.security.auth.x500.X500Principal}); empty for plain TCP or a client that sent no
   * certificate.
   */
  public Optional<Principal> peerPrincipal() {
    SSLSession session = connection == null ? null : connection.tlsSession();
    if (session == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(session.getPeerPrincipal());
    } catch (SSLPeerUnverifiedException anonymous) {
      return Optional.empty(); // the client sent no certificate: no identity
    }
  }

  private Certificate[] peerCertificates() {
    SSLSession session = connection == null ? null : connection.tlsSession();
    if (session == null) {
      return new Certificate[0];
    }
    try {
      return session.getPeerCertificates();
    } catch (SSLPeerUnverifiedException anonymous) {
      return new Certificate[0]; // the client sent no certificate
    }
  }

  /**
   * The protocol the request is read with, and its reply written with: the server's, or the one a
   * THeader request names.
   */
  public TProtocolFactory protocolFactory() {
    return protocolFactory;
  }

  /**
   * The headers the request came with, read-only, in the order they arrived. For a {@link
   * WireKind#HEADER} request, its key/value info headers (keys and values as UTF-8; a repeated key
   * keeps its last value). For an {@link WireKind#HTTP} request, its header fields, names
   * lower-cased, a repeated field's values joined with {@code ", "}, without those the server reads
   * itself ({@code Content-Length}, {@code Transfer-Encoding}, {@code Connection}). Empty for
   * framed and unframed requests.
   *
   * @return the headers; never {@code null}
   */
  public Map<String, String> headers() {
    return headers;
  }

  /**
   * The headers the request carries inside its arguments: the {@code map<string,string>} in field
   * 8888 of the arguments struct, where OpenTelemetry's Java agent (its Thrift instrumentation) and
   * SkyWalking send the trace context of a call on every wire kind, framed and unframed included.
   * Read when first asked, which must be in an interceptor's {@code beforeCall}: afterwards the
   * request belongs to the processor, and a first ask gets an empty map. Read with bounds checked
   * before the map is allocated (at most 100 entries and 8 KiB on the wire; a larger map is ignored
   * whole), for strict binary and compact requests. Empty when there is no such field, or it is
   * malformed: the call goes on, and the generated code skips the field as it skips any field it
   * does not know, so the handler never sees it.
   *
   * @return the headers, read-only; never {@code null}
   */
  public Map<String, String> argumentHeaders() {
    Map<String, String> read = argumentHeaders;
    if (read == null) {
      ByteBuffer request = arguments;
      read =
          request == null ? Map.of() : Collections.unmodifiableMap(ArgumentHeaders.read(request));
      argumentHeaders = read;
    }
    return read;
  }

  /**
   * Sets a header of the reply: a THeader info header, or an HTTP response header field. On framed
   * and unframed connections, which carry no headers, it is kept here and sent nowhere, never an
   * error. Set before the reply is written: from {@link ServerInterceptor#beforeCall}, the handler,
   * or {@link ServerInterceptor#afterCall}. The replies the server makes itself (a {@code
   * handlerTimeout}, an overload, a refused frame) carry none.
   *
   * <p>Checked here, the same on every wire kind, so that every THeader and HTTP client reads the
   * reply: the name is an HTTP token (letters, digits and {@code !#$%&'*+-.^_`|~}) other than
   * {@code Content-Length}, {@code Content-Type}, {@code Connection} and {@code Transfer-Encoding}
   * (the server writes those itself); the value is printable ASCII, spaces and tabs (no CR or LF);
   * at most 100 headers and 65,536 bytes of names and values, the limits this library's decoders
   * enforce on requests. Setting a name again replaces its value, keeping its place.
   *
   * @param name the header's name; not {@code null}
   * @param value its value; {@code null} removes it
   * @return this context
   * @throws IllegalArgumentException if the name or value breaks a rule above, or the header would
   *     pass a limit; the message names it: {@code name: "a\r\nb" (expected: an HTTP token ...)}
   */
  public ServerCallContext setResponseHeader(String name, String value) {
    putResponseHeader(name, value); // checked and set in one step, against concurrent setters
    return this;
  }

  /**
   * The headers set for the reply so far, a read-only copy in the order they were first set.
   *
   * @return the headers; never {@code null}
   */
  public Map<String, String> responseHeaders() {
    return outgoing();
  }

  /**
   * When the caller stops waiting for the reply, as a {@link System#nanoTime()} value: the time the
   * request arrived plus the time left that the caller sent (the {@value
   * ServerCallContext#CLIENT_TIMEOUT_HEADER} header); empty if the caller sent none.
   *
   * @return the deadline, or empty
   */
  public OptionalLong deadline() {
    return hasDeadline ? OptionalLong.of(deadlineNanos) : OptionalLong.empty();
  }

  /**
   * The time left until {@link #deadline()}, at the moment of asking; zero or negative once it has
   * passed, empty without a deadline.
   *
   * @return the time left, or empty
   */
  public Optional<Duration> timeRemaining() {
    return hasDeadline
        ? Optional.of(Duration.ofNanos(deadlineNanos - System.nanoTime()))
        : Optional.empty();
  }

  /**
   * Why the call failed, once it has ended: set before the interceptors' {@link
   * ServerInterceptor#afterCall} runs. The throwable that reached the server when there is one: an
   * {@link Error} from the handler (libthrift's processors catch only exceptions), an exception
   * from a processor of your own, or from an interceptor that failed the call. Else the {@link
   * org.apache.thrift.TApplicationException} the caller was sent: {@code INTERNAL_ERROR} for a
   * handler's undeclared exception (libthrift's processors catch it and send only that; for an
   * asynchronous handler it carries the exception's message), {@code UNKNOWN_METHOD}, {@code
   * PROTOCOL_ERROR} for a malformed request, an interceptor's refusal, the caller's passed
   * deadline.
   *
   * <p>Empty while the call runs, and for a call that succeeded, ended with an exception the IDL
   * declares (the service's answer), was oneway, or was answered by {@link
   * ServerBuilder#handlerTimeout} ({@link CallOutcome#TIMED_OUT}). Kept only on a server with
   * interceptors (the context exists for them).
   *
   * @return the failure, or empty
   */
  public Optional<Throwable> failure() {
    return Optional.ofNullable(failure);
  }

  /**
   * What the server's engine ({@code io.thriftnio.core.internal.server}) does to a context beyond
   * its API, installed in {@link ContextAccess} when this class is initialized.
   */
  private static final class EngineAccess implements ContextAccess.ServerContexts {
    @Override
    @SuppressWarnings("unchecked") // the servers' connections are CallConnection<SaslIdentity>
    public Object create(
        CallConnection<?> connection,
        long connectionId,
        long receivedAtNanos,
        long queuedNanos,
        String methodName,
        int seqId,
        byte messageType,
        TProtocolFactory protocolFactory,
        Map<String, String> headers,
        ByteBuffer arguments) {
      ServerCallContext context =
          new ServerCallContext(
              (CallConnection<SaslIdentity>) connection,
              connectionId,
              receivedAtNanos,
              queuedNanos,
              methodName,
              seqId,
              messageType,
              protocolFactory,
              headers);
      context.arguments = arguments;
      return context;
    }

    @Override
    public void deadlineNanos(Object context, long nanos) {
      ServerCallContext c = (ServerCallContext) context;
      c.deadlineNanos = nanos;
      c.hasDeadline = true;
    }

    @Override
    public void failed(Object context, Throwable cause) {
      ServerCallContext c = (ServerCallContext) context;
      if (c.failure == null && cause != null) {
        c.failure = cause;
      }
    }

    @Override
    public void argumentsRead(Object context) {
      ((ServerCallContext) context).arguments = null;
    }
  }

  /**
   * The context of the call the current thread is running, if it is running one: for code that runs
   * both inside and outside handlers (a pool inheriting the caller's deadline).
   *
   * @return the context, or empty
   */
  public static Optional<ServerCallContext> currentIfAny() {
    return Optional.ofNullable(currentContext());
  }

  /** The context of the call the current thread runs, or {@code null}. */
  private static ServerCallContext currentContext() {
    Supplier<?> call = ContextAccess.serverCall();
    return call == null ? null : (ServerCallContext) call.get();
  }

  /**
   * The connection's number: unique in this JVM, the same for every call of the connection,
   * increasing in the order connections are opened, and the same as the connection's {@link
   * ConnectionInfo#id()} for listeners; 0 when the invoker runs outside a server connection.
   */
  public long connectionId() {
    return connectionId;
  }

  /**
   * When the request arrived: {@link System#nanoTime()} when the read that brought it to the call
   * path began, before any wait for a worker or for the calls read with it (which run first on
   * {@code SAME_THREAD} and {@code LEADER_FOLLOWER}). Subtract from {@code System.nanoTime()} for
   * the time since.
   */
  public long receivedAtNanos() {
    return receivedAtNanos;
  }

  /**
   * How long the call waited to start: from when its request arrived ({@link #receivedAtNanos()})
   * to when the server began to run it, before the interceptors' {@code beforeCall}: the wait for a
   * worker under {@code WORKER}, behind the connection's earlier calls under the other strategies.
   * Zero for a call started as it arrived, and outside a server connection.
   */
  public Duration queueTime() {
    return Duration.ofNanos(queuedNanos);
  }

  /**
   * An attribute an interceptor or the handler has set.
   *
   * @return its value, or {@code null} if not set
   */
  @SuppressWarnings("unchecked")
  public <T> T attribute(CallKey<T> key) {
    return (T) get(key);
  }

  /**
   * Sets an attribute, for the handler and the interceptors of this call only.
   *
   * @param value the value; {@code null} removes it
   * @return this context
   */
  public <T> ServerCallContext setAttribute(CallKey<T> key, T value) {
    set(key, value);
    return this;
  }

  @Override
  public String toString() {
    return "ServerCallContext{"
        + describeMessage()
        + ", connection="
        + connectionId
        + ", remote="
        + remoteAddress()
        + '}';
  }
}
