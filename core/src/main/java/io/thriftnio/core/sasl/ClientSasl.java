package io.thriftnio.core.sasl;

import io.thriftnio.core.settings.SettingException;
import io.thriftnio.core.util.internal.Checks;
import io.thriftnio.core.util.internal.Subjects;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.concurrent.Callable;
import javax.security.auth.Subject;
import javax.security.auth.callback.CallbackHandler;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;

/**
 * How a client authenticates each connection with SASL, libthrift's {@code TSaslClientTransport}
 * framing: the mechanism, its credentials, the qualities of protection the client accepts, and how
 * long the negotiation may take. Given to {@code ClientOptions.Builder.sasl(..)} together with
 * {@code wireKind(WireKind.SASL)}; every connection opened with those options (a channel, a sync
 * transport, each connection of a pool) negotiates before its first call, and a connection whose
 * negotiation fails is never handed out: the open fails with a {@link SaslNegotiationException}.
 *
 * <pre>{@code
 * ClientSasl kerberos = ClientSasl.gssapi(subject, "thrift", "metastore.example.com")
 *     .withQop(SaslQop.AUTH_CONF, SaslQop.AUTH_INT, SaslQop.AUTH);
 * ClientSasl digest = ClientSasl.digestMd5("alice", password, "thrift", "localhost");
 * ClientSasl plain = ClientSasl.plain("alice", password); // over TLS: PLAIN sends the password
 * }</pre>
 *
 * <p>Immutable; the {@code with..} methods return a copy. Passwords are copied when given and never
 * appear in {@link #toString()}. A Kerberos {@link Subject}'s credentials are read at each
 * connection's negotiation, so a Subject the application logs in again (or whose tickets it renews)
 * serves the connections opened after that with the new tickets.
 */
public final class ClientSasl {

  /** Default {@link #negotiationTimeout()}: 10 seconds. */
  public static final Duration DEFAULT_NEGOTIATION_TIMEOUT = Duration.ofSeconds(10);

  private final String mechanism;
  private final String authorizationId;
  private final String protocol;
  private final String serverName;
  private final Map<String, Object> properties;
  private final CallbackHandler handler;
  private final Subject subject;
  private final List<SaslQop> qop;
  private final Duration negotiationTimeout;

  private ClientSasl(
      String mechanism,
      String authorizationId,
      String protocol,
      String serverName,
      Map<String, ?> properties,
      CallbackHandler handler,
      Subject subject,
      List<SaslQop> qop,
      Duration negotiationTimeout) {
    this.mechanism = mechanism;
    this.authorizationId = authorizationId;
    this.protocol = protocol;
    this.serverName = serverName;
    Map<String, Object> all = new HashMap<>(properties);
    all.put(Sasl.QOP, SaslQops.saslList(qop));
    this.properties = Collections.unmodifiableMap(all);
    this.handler = handler;
    this.subject = subject;
    this.qop = List.copyOf(qop);
    this.negotiationTimeout = negotiationTimeout;
  }

  /**
   * Kerberos: the JDK's GSSAPI mechanism with the tickets of {@code subject}, typically logged in
   * from a keytab with {@code Krb5LoginModule}. The service principal is {@code
   * protocol/serverName@REALM}.
   *
   * @param subject holds the client's Kerberos credentials (a TGT, or keys to get one)
   * @param protocol the service's principal name part, for example {@code hive} or {@code thrift}
   * @param serverName the server's host name as it appears in its principal
   */
  public static ClientSasl gssapi(Subject subject, String protocol, String serverName) {
    Checks.notNull("subject", subject);
    return new ClientSasl(
        "GSSAPI",
        null,
        Checks.notNull("protocol", protocol),
        Checks.notNull("serverName", serverName),
        Map.of(),
        null,
        subject,
        List.of(SaslQop.AUTH),
        DEFAULT_NEGOTIATION_TIMEOUT);
  }

  /**
   * PLAIN: the user name and password in clear (RFC 4616), as Hive's and Impala's LDAP
   * authentication takes them. Use it over TLS only. The password is copied.
   *
   * @param user the authentication id
   * @param password the password; the caller may clear its array afterwards
   */
  public static ClientSasl plain(String user, char[] password) {
    return new ClientSasl(
        "PLAIN",
        null,
        null,
        null,
        Map.of(),
        new SaslCredentials(Checks.notNull("user", user), Checks.notNull("password", password)),
        null,
        List.of(SaslQop.AUTH),
        DEFAULT_NEGOTIATION_TIMEOUT);
  }

  /**
   * DIGEST-MD5 (RFC 2831), the JDK's mechanism: a challenge and response over a shared password;
   * offers integrity and confidentiality ({@link #withQop}). The password is copied.
   *
   * @param user the authentication id
   * @param password the password; the caller may clear its array afterwards
   * @param protocol the service's protocol name, for example {@code thrift}
   * @param serverName the server's host name, as the server names itself
   */
  public static ClientSasl digestMd5(
      String user, char[] password, String protocol, String serverName) {
    return new ClientSasl(
        "DIGEST-MD5",
        null,
        Checks.notNull("protocol", protocol),
        Checks.notNull("serverName", serverName),
        Map.of(),
        new SaslCredentials(Checks.notNull("user", user), Checks.notNull("password", password)),
        null,
        List.of(SaslQop.AUTH),
        DEFAULT_NEGOTIATION_TIMEOUT);
  }

  /**
   * Any mechanism a registered {@code SaslClientFactory} provides, with the arguments of {@link
   * Sasl#createSaslClient}. A {@link Sasl#QOP} entry of {@code properties} sets {@link #qop()}
   * (else {@code auth}); {@link #withQop} replaces it.
   *
   * @param mechanism the IANA name, for example {@code GSSAPI}
   * @param authorizationId the identity to act as, or {@code null} for the authenticated one
   * @param protocol the service's protocol name
   * @param serverName the server's fully qualified host name
   * @param properties the mechanism's properties; copied
   * @param handler answers the mechanism's callbacks, or {@code null} if it asks none
   */
  public static ClientSasl of(
      String mechanism,
      String authorizationId,
      String protocol,
      String serverName,
      Map<String, ?> properties,
      CallbackHandler handler) {
    Checks.notNull("properties", properties);
    Object qop = properties.get(Sasl.QOP);
    return new ClientSasl(
        Checks.notNull("mechanism", mechanism),
        authorizationId,
        Checks.notNull("protocol", protocol),
        Checks.notNull("serverName", serverName),
        properties,
        handler,
        null,
        qop == null ? List.of(SaslQop.AUTH) : SaslQops.parse(qop.toString()),
        DEFAULT_NEGOTIATION_TIMEOUT);
  }

  /**
   * The qualities of protection this client accepts, most preferred first; the server picks among
   * them. Default {@code auth} only. {@code auth-int} and {@code auth-conf} need a mechanism with a
   * security layer (GSSAPI, DIGEST-MD5): every frame is then wrapped, which costs CPU per call;
   * over TLS, {@code auth} is usually enough.
   *
   * @param preferred at least one, no duplicates
   * @return a copy with these
   */
  public ClientSasl withQop(SaslQop... preferred) {
    Checks.notNull("qop", preferred);
    if (preferred.length == 0
        || Arrays.asList(preferred).contains(null)
        || EnumSet.copyOf(Arrays.asList(preferred)).size() != preferred.length) {
      throw new SettingException(
          "qop", Arrays.toString(preferred), "at least one, no nulls, no repeats");
    }
    return new ClientSasl(
        mechanism,
        authorizationId,
        protocol,
        serverName,
        properties,
        handler,
        subject,
        List.of(preferred),
        negotiationTimeout);
  }

  /**
   * The Subject the mechanism runs as: each negotiation step runs as it ({@code Subject.callAs};
   * {@code doAs} on Java 17), where GSSAPI finds its Kerberos credentials. {@link #gssapi} sets it.
   *
   * @param subject not null
   * @return a copy with it
   */
  public ClientSasl withSubject(Subject subject) {
    return new ClientSasl(
        mechanism,
        authorizationId,
        protocol,
        serverName,
        properties,
        handler,
        Checks.notNull("subject", subject),
        qop,
        negotiationTimeout);
  }

  /**
   * How long one connection's negotiation may take, from the first message sent to the server's
   * {@code COMPLETE}; when it passes, the connection is closed and its open fails with a {@link
   * SaslNegotiationException}. Default {@link #DEFAULT_NEGOTIATION_TIMEOUT} (10 s).
   *
   * @param negotiationTimeout {@code > 0}
   * @return a copy with it
   */
  public ClientSasl withNegotiationTimeout(Duration negotiationTimeout) {
    return new ClientSasl(
        mechanism,
        authorizationId,
        protocol,
        serverName,
        properties,
        handler,
        subject,
        qop,
        Checks.positive("negotiationTimeout", negotiationTimeout));
  }

  /** The mechanism's name, for example {@code GSSAPI}. */
  public String mechanism() {
    return mechanism;
  }

  /** The identity to act as, if it differs from the authenticated one. */
  public Optional<String> authorizationId() {
    return Optional.ofNullable(authorizationId);
  }

  /** The service's protocol name; {@code null} for {@link #plain}, which names no service. */
  public String protocol() {
    return protocol;
  }

  /** The server's host name; {@code null} for {@link #plain}, which names no service. */
  public String serverName() {
    return serverName;
  }

  /** The mechanism's properties, {@link Sasl#QOP} included ({@link #qop()}); unmodifiable. */
  public Map<String, ?> properties() {
    return properties;
  }

  /** The Subject the mechanism runs as, if any. */
  public Optional<Subject> subject() {
    return Optional.ofNullable(subject);
  }

  /** The qualities of protection accepted, most preferred first. */
  public List<SaslQop> qop() {
    return qop;
  }

  /** How long one connection's negotiation may take. */
  public Duration negotiationTimeout() {
    return negotiationTimeout;
  }

  /**
   * A new {@link SaslClient} for one connection's negotiation, created inside the {@link
   * #subject()}'s {@code doAs} when there is one. The library calls it once per connection.
   *
   * @throws SaslException if no registered factory provides the mechanism, or it refuses the
   *     arguments
   */
  public SaslClient newSaslClient() throws SaslException {
    Callable<SaslClient> create =
        () ->
            Sasl.createSaslClient(
                new String[] {mechanism},
                authorizationId,
                protocol,
                serverName,
                properties,
                handler);
    SaslClient client;
    try {
      client = Subjects.call(subject, create);
    } catch (Exception e) {
      throw asSaslException(e);
    }
    if (client == null) {
      throw new SaslException(
          "mechanism: " + mechanism + " (expected: one a registered SaslClientFactory provides)");
    }
    return client;
  }

  private static SaslException asSaslException(Exception e) {
    return e instanceof SaslException
        ? (SaslException) e
        : new SaslException(Objects.toString(e.getMessage(), e.toString()), e);
  }

  @Override
  public String toString() {
    StringJoiner s = new StringJoiner(", ", "ClientSasl{", "}");
    s.add(mechanism);
    if (authorizationId != null) {
      s.add("authorizationId=" + authorizationId);
    }
    if (protocol != null) {
      s.add("service=" + protocol + "/" + serverName);
    }
    List<String> names = new ArrayList<>();
    qop.forEach(q -> names.add(q.saslName()));
    s.add("qop=" + names);
    if (subject != null) {
      s.add("subject=" + subject.getPrincipals());
    }
    s.add("negotiationTimeout=" + negotiationTimeout);
    return s.toString();
  }
}
