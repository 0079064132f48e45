package io.thriftnio.core.sasl;

import io.thriftnio.core.settings.SettingException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.stream.Collectors;
import javax.security.auth.Subject;
import javax.security.auth.callback.CallbackHandler;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;

/**
 * The SASL settings of a server ({@code ServerBuilder.sasl(ServerSasl)}, with {@code WireKind.SASL}
 * among its {@code wireKinds}): the mechanisms it offers, the qualities of protection it accepts,
 * and the limits of a negotiation. Immutable.
 *
 * <pre>{@code
 * ServerSasl sasl = ServerSasl.builder()
 *     .gssapi(serverSubject, "thrift", "host.example.com")   // Kerberos, from a keytab login
 *     .qop(SaslQop.AUTH_CONF, SaslQop.AUTH_INT, SaslQop.AUTH)
 *     .build();
 * }</pre>
 *
 * <p>Each connection negotiates one mechanism, the one its client names in its {@code START}
 * message; an unknown one is refused with {@code BAD}. The mechanisms' steps run off the IO threads
 * (a GSSAPI step or an authenticator may block), on each server's own negotiation executor ({@link
 * Builder#negotiationExecutor(Executor)}), as the server's subject ({@code Subject.callAs}; {@code
 * doAs} on Java 17) for GSSAPI. A negotiation that does not complete within {@link
 * #negotiationTimeout()} is refused with {@code ERROR}; every failure closes the connection and
 * counts in {@code ServerStats.saslFailures()}.
 *
 * <p>What a refused peer is told is the library's, never the mechanism's or the authenticator's
 * text: {@code BAD "authentication failed"} when the mechanism refused its credential (a wrong
 * password, a user who may not act as another), {@code ERROR "internal error"} when the server
 * failed (an authenticator threw, its user store down). The server's log has the detail, with the
 * peer's address. Rules of the negotiation the peer broke (a bad status byte, a message over {@link
 * #maxNegotiationMessageSize()}, no {@code COMPLETE} within {@link #negotiationTimeout()}, an
 * unknown mechanism) are told in the library's own words.
 */
public final class ServerSasl {

  /** Default {@link Builder#negotiationTimeout(Duration)}: 10 seconds. */
  public static final Duration DEFAULT_NEGOTIATION_TIMEOUT = Duration.ofSeconds(10);

  /**
   * Default {@link Builder#maxNegotiationMessageSize(int)}: 1 MiB, sixteen times the largest
   * Kerberos token Active Directory issues ({@code MaxTokenSize} 65,535 bytes, a user in many
   * groups), while a peer that declares more is refused before anything is allocated.
   */
  public static final int DEFAULT_MAX_NEGOTIATION_MESSAGE_SIZE = 1 << 20;

  private final Map<String, Mechanism> mechanisms;
  private final Set<SaslQop> qop;
  private final Duration negotiationTimeout;
  private final int maxNegotiationMessageSize;
  private final boolean plainWithoutTls;
  private final Executor negotiationExecutor;

  private ServerSasl(Builder b) {
    if (b.mechanisms.isEmpty()) {
      throw new SettingException(
          "mechanisms", "[]", "at least one, from gssapi, digestMd5, plain or mechanism");
    }
    this.qop = Collections.unmodifiableSet(EnumSet.copyOf(b.qop));
    if (b.mechanisms.containsKey(PlainServer.NAME) && !qop.contains(SaslQop.AUTH)) {
      throw new SettingException(
          "qop", qop, "to include AUTH when PLAIN is offered: it has no security layer");
    }
    this.negotiationTimeout = positive("negotiationTimeout", b.negotiationTimeout);
    if (b.maxNegotiationMessageSize <= 0) {
      throw new SettingException("maxNegotiationMessageSize", b.maxNegotiationMessageSize, "> 0");
    }
    this.maxNegotiationMessageSize = b.maxNegotiationMessageSize;
    this.plainWithoutTls = b.plainWithoutTls;
    this.negotiationExecutor = checkNegotiationExecutor(b.negotiationExecutor);
    String qopProperty = qopProperty(b.qop);
    Map<String, Mechanism> built = new LinkedHashMap<>();
    b.mechanisms.forEach((name, m) -> built.put(name, m.withQop(qopProperty)));
    this.mechanisms = Collections.unmodifiableMap(built);
  }

  private static Duration positive(String name, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new SettingException(name, value, "> 0");
    }
    return value;
  }

  /** Refuses a pool that would drop a step silently or run it on the IO thread that asked. */
  private static Executor checkNegotiationExecutor(Executor executor) {
    if (executor instanceof ThreadPoolExecutor) {
      RejectedExecutionHandler handler =
          ((ThreadPoolExecutor) executor).getRejectedExecutionHandler();
      if (handler instanceof ThreadPoolExecutor.DiscardPolicy
          || handler instanceof ThreadPoolExecutor.DiscardOldestPolicy
          || handler instanceof ThreadPoolExecutor.CallerRunsPolicy) {
        throw new SettingException(
            "negotiationExecutor",
            executor + " with rejection handler " + handler.getClass().getName(),
            "a handler that rejects, e.g. ThreadPoolExecutor.AbortPolicy: a discarded step leaves"
                + " its negotiation waiting for negotiationTimeout, and CallerRunsPolicy would run"
                + " it on an IO thread");
      }
    }
    return executor;
  }

  /** A builder with no mechanism yet; add at least one. */
  public static Builder builder() {
    return new Builder();
  }

  /** The names of the mechanisms offered, in the order they were added. */
  public Set<String> mechanisms() {
    return mechanisms.keySet();
  }

  /** The qualities of protection accepted; by default {@link SaslQop#AUTH} alone. */
  public Set<SaslQop> qop() {
    return qop;
  }

  /** How long a connection may take to complete its negotiation. */
  public Duration negotiationTimeout() {
    return negotiationTimeout;
  }

  /** The largest negotiation message's payload accepted, in bytes. */
  public int maxNegotiationMessageSize() {
    return maxNegotiationMessageSize;
  }

  /** Whether PLAIN is offered on a server without TLS (its passwords then travel in clear). */
  public boolean plainWithoutTls() {
    return plainWithoutTls;
  }

  /**
   * The executor the mechanisms' steps run on, as set by {@link
   * Builder#negotiationExecutor(Executor)}; {@code null} (the default) for each server's own pool.
   */
  public Executor negotiationExecutor() {
    return negotiationExecutor;
  }

  /** Whether PLAIN is among the mechanisms. */
  public boolean offersPlain() {
    return mechanisms.containsKey(PlainServer.NAME);
  }

  /**
   * A new {@link SaslServer} for one connection that asked for {@code mechanism}; for GSSAPI its
   * steps run as the server's subject ({@code Subject.callAs}; {@code doAs} on Java 17). May block
   * (GSSAPI reads the subject's keys): the servers call it off their IO threads.
   *
   * @param mechanism the name the client sent, e.g. {@code DIGEST-MD5}
   * @throws SaslException if the mechanism is not offered, or its provider refuses
   */
  public SaslServer newSaslServer(String mechanism) throws SaslException {
    Mechanism m = mechanisms.get(mechanism);
    if (m == null) {
      throw new SaslException("Unsupported mechanism type " + mechanism);
    }
    return m.newServer();
  }

  @Override
  public String toString() {
    return "ServerSasl{mechanisms="
        + mechanisms.keySet()
        + ", qop="
        + qop
        + ", negotiationTimeout="
        + negotiationTimeout
        + ", maxNegotiationMessageSize="
        + maxNegotiationMessageSize
        + (plainWithoutTls ? ", plainWithoutTls" : "")
        + (negotiationExecutor != null ? ", negotiationExecutor=" + negotiationExecutor : "")
        + "}";
  }

  private static String qopProperty(List<SaslQop> qop) {
    return qop.stream().map(SaslQop::saslName).collect(Collectors.joining(","));
  }

  /**
   * Builds a {@link ServerSasl}. Each mechanism method adds one mechanism (a later one of the same
   * name replaces it); {@link #build()} validates. Not thread-safe.
   */
  public static final class Builder {
    private final Map<String, Mechanism> mechanisms = new LinkedHashMap<>();
    private List<SaslQop> qop = List.of(SaslQop.AUTH);
    private Duration negotiationTimeout = DEFAULT_NEGOTIATION_TIMEOUT;
    private int maxNegotiationMessageSize = DEFAULT_MAX_NEGOTIATION_MESSAGE_SIZE;
    private boolean plainWithoutTls;
    private Executor negotiationExecutor;

    private Builder() {}

    /**
     * Offers Kerberos ({@code GSSAPI}, the JDK's): the server's steps run as {@code serverSubject},
     * whose credentials hold the service principal's keys ({@code protocol/serverName@REALM}, from
     * a keytab login). A client is authorized as the principal it authenticated as.
     *
     * @param serverSubject the logged-in subject with the service's keys
     * @param protocol the service name, the principal's first part, e.g. {@code thrift} or {@code
     *     hive}
     * @param serverName the host part of the principal, a fully qualified host name
     */
    public Builder gssapi(Subject serverSubject, String protocol, String serverName) {
      Objects.requireNonNull(serverSubject, "serverSubject");
      return add(Mechanism.jdk("GSSAPI", protocol, serverName, Map.of(), null, serverSubject));
    }

    /**
     * Offers {@code DIGEST-MD5} (the JDK's). {@code handler} answers the mechanism's callbacks:
     * {@code NameCallback} and {@code RealmCallback} name the user, {@code PasswordCallback} wants
     * its password; an {@code AuthorizeCallback} it does not support authorizes a user as itself
     * only.
     *
     * @param protocol the service name, e.g. {@code thrift}
     * @param serverName the server's host name, the digest's realm by default
     * @param handler the password lookup
     */
    public Builder digestMd5(String protocol, String serverName, CallbackHandler handler) {
      Objects.requireNonNull(handler, "handler");
      return add(Mechanism.jdk("DIGEST-MD5", protocol, serverName, Map.of(), handler, null));
    }

    /**
     * Offers {@code PLAIN} (RFC 4616, this library's own server): each client's user name and
     * password go to {@code authenticator}. PLAIN sends the password in clear: a server without TLS
     * refuses it at {@code build()} unless {@link #plainWithoutTls(boolean)}.
     */
    public Builder plain(PlainAuthenticator authenticator) {
      Objects.requireNonNull(authenticator, "authenticator");
      return add(Mechanism.plain(authenticator));
    }

    /**
     * Offers any mechanism a {@code javax.security.sasl} provider has ({@code
     * Sasl.createSaslServer}), with its own properties; the accepted {@link #qop} is added as
     * {@code Sasl.QOP} unless {@code properties} sets it.
     *
     * @param name the mechanism, e.g. {@code CRAM-MD5}
     * @param protocol the service name
     * @param serverName the server's fully qualified host name
     * @param properties the provider's properties; empty for none
     * @param handler the provider's callback handler, or {@code null}
     */
    public Builder mechanism(
        String name,
        String protocol,
        String serverName,
        Map<String, ?> properties,
        CallbackHandler handler) {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(properties, "properties");
      return add(Mechanism.jdk(name, protocol, serverName, properties, handler, null));
    }

    private Builder add(Mechanism mechanism) {
      mechanisms.put(mechanism.name(), mechanism);
      return this;
    }

    /**
     * The qualities of protection accepted, in order of preference. Default: {@link SaslQop#AUTH}
     * alone. Under {@code AUTH_INT} and {@code AUTH_CONF} every frame is wrapped by the mechanism
     * (GSSAPI, DIGEST-MD5), which costs CPU per byte; PLAIN offers {@code AUTH} only.
     */
    public Builder qop(SaslQop... accepted) {
      if (accepted == null || accepted.length == 0 || Arrays.asList(accepted).contains(null)) {
        throw new SettingException("qop", Arrays.toString(accepted), "at least one, no null");
      }
      this.qop = List.copyOf(new LinkedHashSet<>(Arrays.asList(accepted)));
      return this;
    }

    /**
     * How long a connection may take from its first SASL byte to its negotiation's completion; then
     * it is sent {@code ERROR} and closed. Default: 10 seconds.
     */
    public Builder negotiationTimeout(Duration timeout) {
      this.negotiationTimeout = timeout;
      return this;
    }

    /**
     * The largest payload of one negotiation message, in bytes: a larger declared length is refused
     * with {@code ERROR} before anything is allocated. Default: 1,048,576 (1 MiB; see {@link
     * #DEFAULT_MAX_NEGOTIATION_MESSAGE_SIZE}).
     */
    public Builder maxNegotiationMessageSize(int bytes) {
      this.maxNegotiationMessageSize = bytes;
      return this;
    }

    /**
     * Whether PLAIN may be offered on a server without TLS, where its passwords travel in clear (a
     * trusted network, TLS ended by a proxy): the server then logs a warning when built. Default:
     * {@code false}, refused.
     */
    public Builder plainWithoutTls(boolean allowed) {
      this.plainWithoutTls = allowed;
      return this;
    }

    /**
     * Where the mechanisms' steps run (making a connection's {@code SaslServer}, each {@code
     * evaluateResponse}, so each {@link PlainAuthenticator} and {@code CallbackHandler} call), off
     * the IO threads. Default ({@code null}): each server's own pool, made when it is built and
     * shut down when it closes, of max(4, cores) threads named after the server ({@code
     * thrift-nio-netty-sasl-N}, {@code thrift-nio-grizzly-server-sasl-N}) with 4,096 steps waiting;
     * a step beyond that is refused with {@code ERROR}, and its connection closed. So one server's
     * slow user store never delays another server's negotiations.
     *
     * <p>Give an executor of your own for an authenticator that blocks long (an LDAP bind: more
     * threads, or virtual ones), or to share one among servers. It stays yours: no server shuts it
     * down. It must run each step on another thread than the caller's (an IO thread) or throw
     * {@code RejectedExecutionException}, answered with {@code ERROR}; {@link #build()} refuses a
     * {@code ThreadPoolExecutor} whose rejection handler discards or runs on the caller. A
     * negotiation whose step waits longer than {@link #negotiationTimeout(Duration)} is refused.
     * Its {@code execute} is called from an IO thread that holds none of the library's locks.
     *
     * @param executor the executor, or {@code null} for the server's own pool
     */
    public Builder negotiationExecutor(Executor executor) {
      this.negotiationExecutor = executor;
      return this;
    }

    /**
     * The settings.
     *
     * @throws SettingException if no mechanism was added, PLAIN is offered without {@code AUTH}
     *     accepted, a limit is out of range, or the negotiation executor would drop a step or run
     *     it on an IO thread
     */
    public ServerSasl build() {
      return new ServerSasl(this);
    }
  }
}
