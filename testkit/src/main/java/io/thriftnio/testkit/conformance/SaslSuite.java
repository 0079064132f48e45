package io.thriftnio.testkit.conformance;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.CloseCause;
import io.thriftnio.core.ConnectionInfo;
import io.thriftnio.core.ConnectionListener;
import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ServerInterceptor;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.sasl.SaslIdentity;
import io.thriftnio.core.sasl.SaslQop;
import io.thriftnio.core.sasl.ServerSasl;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.HeldLocks;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.sasl.PlainClient;
import io.thriftnio.testkit.sasl.SaslPeers;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSaslClientTransport;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransportException;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SASL ({@link WireKind#SASL}) against libthrift's own blocking client, {@code
 * TSaslClientTransport} over a {@code TSocket}: DIGEST-MD5 under each quality of protection and
 * PLAIN (a test-only PLAIN client: the JDK has none), echo calls of 1 B, 64 KiB and above the
 * mechanism's 64 KiB buffer; the identity the handler sees; an allow-list interceptor by
 * authorization id; refused negotiations (wrong password, unknown mechanism, an impersonation) with
 * what the client reads, the count and the close cause; and the wrong wire on either side failing
 * at once. A transport runs it once per strategy, one {@link ServerCell} each.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Matrix.Of(Matrix.PROTOCOLS)
public abstract class SaslSuite extends ServerCellSuite {

  private static final Duration WITHIN = Duration.ofSeconds(10);
  private static final int SOCKET_TIMEOUT_MILLIS = 10_000;

  /** Above DIGEST-MD5's default buffer of 65,536 bytes. */
  private static final int ABOVE_MAX_BUFFER = 200 * 1024;

  private final List<ThriftServer> servers = new ArrayList<>();
  private final List<TSaslClientTransport> clients = new ArrayList<>();
  private final AtomicReference<SaslIdentity> seen = new AtomicReference<>();
  private final List<CloseCause> closes = new CopyOnWriteArrayList<>();

  /** What the connection listeners saw held of the library's locks when they ran; empty if none. */
  private final List<String> heldInListeners = new CopyOnWriteArrayList<>();

  @AfterEach
  void closeEverything() {
    clients.forEach(SaslPeers::closeQuietly);
    servers.forEach(ThriftServer::close);
  }

  /** DIGEST-MD5 (every QOP) and PLAIN (without TLS, said so), beside framed. */
  private ThriftServer start(ServerInterceptor... interceptors) throws Exception {
    return start(
        ServerSasl.builder()
            .digestMd5(SaslPeers.PROTOCOL, SaslPeers.SERVER_NAME, SaslPeers.digestServerHandler())
            .plain((user, password) -> new String(password).equals(SaslPeers.USERS.get(user)))
            .plainWithoutTls(true)
            .qop(SaslQop.AUTH_CONF, SaslQop.AUTH_INT, SaslQop.AUTH)
            .build(),
        interceptors);
  }

  private ThriftServer start(ServerSasl sasl, ServerInterceptor... interceptors) throws Exception {
    BenchHandler handler =
        new BenchHandler() {
          @Override
          public ByteBuffer echo(ByteBuffer payload) {
            seen.set(ServerCallContext.current().sasl().orElse(null));
            return super.echo(payload);
          }
        };
    ThriftServer server =
        newServerBuilder()
            .processor(new BenchService.Processor<>(handler))
            .protocol(new TBinaryProtocol.Factory())
            .ioStrategy(strategy())
            .wireKinds(WireKind.FRAMED, WireKind.SASL)
            .sasl(sasl)
            .interceptors(List.of(interceptors))
            .connectionListener(
                new ConnectionListener() {
                  @Override
                  public void onOpen(ConnectionInfo connection) {
                    noteHeld("onOpen", heldInListeners);
                  }

                  @Override
                  public void onClose(ConnectionInfo connection, CloseCause cause) {
                    noteHeld("onClose", heldInListeners);
                    closes.add(cause);
                  }
                })
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build();
    servers.add(server);
    return server.start();
  }

  private BenchService.Client open(ThriftServer server, SaslClient sasl) throws Exception {
    TSaslClientTransport transport =
        SaslPeers.transport(server.localAddress(), sasl, SOCKET_TIMEOUT_MILLIS);
    clients.add(transport);
    transport.open();
    return new BenchService.Client(new TBinaryProtocol(transport));
  }

  private static byte[] echo(BenchService.Client client, ByteBuffer sent) throws Exception {
    ByteBuffer got = client.echo(sent);
    byte[] bytes = new byte[got.remaining()];
    got.get(bytes);
    return bytes;
  }

  private static byte[] payload(int size) {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) (i * 31 + 7);
    }
    return b;
  }

  static Stream<Arguments> digestRows() {
    List<Arguments> rows = new ArrayList<>();
    for (SaslQop qop : SaslQop.values()) {
      for (int size : new int[] {1, 64 * 1024, ABOVE_MAX_BUFFER}) {
        rows.add(Arguments.of(qop, size));
      }
    }
    return rows.stream();
  }

  @ParameterizedTest(name = "DIGEST-MD5 {0}, {1} bytes")
  @MethodSource("digestRows")
  void digestMd5EchoesUnderEachQop(SaslQop qop, int size) throws Exception {
    ThriftServer server = start();
    SaslClient sasl = SaslPeers.digestClient("alice", SaslPeers.USERS.get("alice"), qop);
    BenchService.Client client = open(server, sasl);
    assertThat(sasl.getNegotiatedProperty(Sasl.QOP)).isEqualTo(qop.saslName());

    byte[] sent = payload(size);
    for (int call = 0; call < 3; call++) { // sequence numbers move on under auth-int/auth-conf
      assertThat(echo(client, ByteBuffer.wrap(sent))).isEqualTo(sent);
    }
    assertThat(seen.get()).isEqualTo(new SaslIdentity("DIGEST-MD5", "alice", qop));
    assertThat(server.stats().saslFailures()).isZero();
  }

  @ParameterizedTest(name = "PLAIN, {0} bytes")
  @MethodSource("sizes")
  void plainEchoes(int size) throws Exception {
    ThriftServer server = start();
    BenchService.Client client = open(server, SaslPeers.plainClient("bob", "bob's"));
    byte[] sent = payload(size);
    assertThat(echo(client, ByteBuffer.wrap(sent))).isEqualTo(sent);
    assertThat(seen.get()).isEqualTo(new SaslIdentity("PLAIN", "bob", SaslQop.AUTH));
  }

  static Stream<Integer> sizes() {
    return Stream.of(1, 64 * 1024, ABOVE_MAX_BUFFER);
  }

  @Test
  void framedCallsStillServedBesideSasl() throws Exception {
    ThriftServer server = start();
    try (TFramedTransport framed =
        new TFramedTransport(
            new TSocket("127.0.0.1", server.localAddress().getPort(), SOCKET_TIMEOUT_MILLIS))) {
      framed.open();
      BenchService.Client client = new BenchService.Client(new TBinaryProtocol(framed));
      assertThat(echo(client, ByteBuffer.wrap(new byte[] {4, 2}))).isEqualTo(new byte[] {4, 2});
    }
    assertThat(seen.get()).as("a framed call has no SASL identity").isNull();
  }

  // ---- refused negotiations
  // ----------------------------------------------------------------------

  private void assertRefused(ThriftServer server, SaslClient sasl, String reason) throws Exception {
    assertThatThrownBy(() -> open(server, sasl))
        .isInstanceOf(TTransportException.class)
        .hasMessageContaining("Peer indicated failure: ")
        .hasMessageContaining(reason);
    await("the failure counted")
        .atMost(WITHIN)
        .untilAsserted(
            () -> assertThat(server.stats().saslFailures() == 1).as("%s", server.stats()).isTrue());
    await("the connection closed")
        .atMost(WITHIN)
        .untilAsserted(
            () ->
                assertThat(server.stats().openConnections() == 0)
                    .as("%s", server.stats())
                    .isTrue());
    assertThat(closes).containsExactly(CloseCause.SASL_FAILURE);
    assertThat(server.stats().badFrames()).isZero();
  }

  @Test
  void aWrongDigestPasswordIsRefusedWithBad() throws Exception {
    ThriftServer server = start();
    assertRefused(
        server,
        SaslPeers.digestClient("alice", "wrong", SaslQop.AUTH),
        "Peer indicated failure: authentication failed");
  }

  @Test
  void aWrongPlainPasswordIsRefusedWithTheLibrarysReasonOnly() throws Exception {
    ThriftServer server = start();
    assertRefused(
        server,
        SaslPeers.plainClient("alice", "wrong"),
        "Peer indicated failure: authentication failed");
  }

  @Test
  void anUnknownMechanismIsRefusedWithBad() throws Exception {
    ThriftServer server = start();
    SaslClient cram =
        Sasl.createSaslClient(
            new String[] {"CRAM-MD5"},
            null,
            SaslPeers.PROTOCOL,
            SaslPeers.SERVER_NAME,
            null,
            callbacks -> {
              for (var callback : callbacks) {
                if (callback instanceof javax.security.auth.callback.NameCallback n) {
                  n.setName("alice");
                } else if (callback instanceof javax.security.auth.callback.PasswordCallback p) {
                  p.setPassword("alice-secret".toCharArray());
                }
              }
            });
    assertRefused(server, cram, "Unsupported mechanism type CRAM-MD5");
  }

  @Test
  void plainRefusesActingAsAnotherUnlessTheAuthenticatorAllows() throws Exception {
    ThriftServer server = start();
    assertRefused(
        server,
        new PlainClient("alice", "bob", "bob's".toCharArray()),
        "Peer indicated failure: authentication failed");
  }

  @Test
  void plainLetsAProxyUserActAsAnotherWhenTheAuthenticatorAllows() throws Exception {
    ThriftServer server =
        start(
            ServerSasl.builder()
                .plain(
                    new io.thriftnio.core.sasl.PlainAuthenticator() {
                      @Override
                      public boolean authenticate(String user, char[] password) {
                        return new String(password).equals(SaslPeers.USERS.get(user));
                      }

                      @Override
                      public boolean mayActAs(String user, String authorizationId) {
                        return user.equals("bob") && authorizationId.equals("alice");
                      }
                    })
                .plainWithoutTls(true)
                .build());
    BenchService.Client client =
        open(server, new PlainClient("alice", "bob", "bob's".toCharArray()));
    echo(client, ByteBuffer.wrap(new byte[] {1}));
    assertThat(seen.get()).isEqualTo(new SaslIdentity("PLAIN", "alice", SaslQop.AUTH));
  }

  // ---- one server's slow authenticator and another's negotiations
  // ------------------------------------------------------------------

  @Test
  void aBlockedAuthenticatorOnOneServerDoesNotDelayAnotherServersNegotiation() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger entered = new AtomicInteger();
    AtomicReference<String> thread = new AtomicReference<>();
    ThriftServer blocked =
        start(
            ServerSasl.builder()
                .plain(
                    (user, password) -> {
                      thread.set(Thread.currentThread().getName());
                      entered.incrementAndGet();
                      release.await(); // a user store that does not answer
                      return true;
                    })
                .plainWithoutTls(true)
                .build());
    ThriftServer other = start();
    // More negotiations than a process-wide executor of max(2, cores) threads could run at once.
    int stuck = 2 * Math.max(2, Runtime.getRuntime().availableProcessors()) + 2;
    List<RawConnection> raws = new ArrayList<>();
    try {
      byte[] credential = ("\0alice\0x").getBytes(java.nio.charset.StandardCharsets.UTF_8);
      java.io.ByteArrayOutputStream negotiation = new java.io.ByteArrayOutputStream();
      negotiation.writeBytes(new byte[] {1, 0, 0, 0, 5});
      negotiation.writeBytes("PLAIN".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      negotiation.writeBytes(new byte[] {2});
      negotiation.writeBytes(ByteBuffer.allocate(4).putInt(credential.length).array());
      negotiation.writeBytes(credential);
      for (int i = 0; i < stuck; i++) {
        RawConnection raw = RawConnection.open(blocked.localAddress());
        raws.add(raw);
        raw.write(negotiation.toByteArray());
      }
      await("a blocked authenticator")
          .atMost(WITHIN)
          .untilAsserted(() -> assertThat(entered.get() >= 1).as("%s", blocked.stats()).isTrue());
      await("every stuck connection")
          .atMost(WITHIN)
          .untilAsserted(
              () ->
                  assertThat(blocked.stats().openConnections() == stuck)
                      .as("%s", blocked.stats())
                      .isTrue());

      long began = System.nanoTime();
      BenchService.Client client = open(other, SaslPeers.plainClient("bob", "bob's"));
      assertThat(echo(client, ByteBuffer.wrap(new byte[] {3}))).isEqualTo(new byte[] {3});
      Duration took = Duration.ofNanos(System.nanoTime() - began);
      assertThat(took)
          .as("the other server's negotiation, while %d are blocked on the first", entered.get())
          .isLessThan(Duration.ofSeconds(5));
      assertThat(release.getCount()).as("still blocked meanwhile").isEqualTo(1);
      assertThat(thread.get()).as("the server's own negotiation thread").contains("-sasl-");
    } finally {
      release.countDown();
      for (RawConnection raw : raws) {
        raw.close();
      }
    }
  }

  @Test
  void aNegotiationExecutorOfTheApplicationRunsTheStepsAndOutlivesTheServer() throws Exception {
    java.util.concurrent.ExecutorService mine =
        java.util.concurrent.Executors.newSingleThreadExecutor(
            task -> new Thread(task, "application-sasl"));
    try {
      AtomicReference<String> thread = new AtomicReference<>();
      ThriftServer server =
          start(
              ServerSasl.builder()
                  .plain(
                      (user, password) -> {
                        thread.set(Thread.currentThread().getName());
                        return new String(password).equals(SaslPeers.USERS.get(user));
                      })
                  .plainWithoutTls(true)
                  .negotiationExecutor(mine)
                  .build());
      BenchService.Client client = open(server, SaslPeers.plainClient("bob", "bob's"));
      assertThat(echo(client, ByteBuffer.wrap(new byte[] {5}))).isEqualTo(new byte[] {5});
      assertThat(thread.get()).isEqualTo("application-sasl");
      clients.forEach(SaslPeers::closeQuietly);
      server.close();
      assertThat(mine.isShutdown()).as("the application's executor, not the server's").isFalse();
      assertThat(mine.submit(() -> 42).get(10, TimeUnit.SECONDS)).isEqualTo(42);
    } finally {
      mine.shutdownNow();
    }
  }

  /** Adds to {@code into} what the current thread holds of the library's locks, if anything. */
  private static void noteHeld(String where, List<String> into) {
    List<String> held = HeldLocks.ofLibrary();
    if (!held.isEmpty()) {
      into.add(where + " on " + Thread.currentThread().getName() + " holding " + held);
    }
  }

  /**
   * The application's negotiation executor is user code: the server calls its {@code execute} under
   * no lock of the library's, on every transport (the IO thread of a handshaking connection once
   * held one). One that runs the step on the calling thread runs the authenticator there, so that
   * too must find no lock; so must the connection listeners, for a negotiation that succeeds and
   * one that is refused.
   */
  @ParameterizedTest(name = "steps run on {0}")
  @ValueSource(strings = {"the application's thread", "the calling thread"})
  void theApplicationsNegotiationExecutorIsCalledUnderNoLockOfTheLibrary(String where)
      throws Exception {
    boolean onCaller = where.equals("the calling thread");
    java.util.concurrent.ExecutorService own =
        java.util.concurrent.Executors.newSingleThreadExecutor(
            task -> new Thread(task, "application-sasl"));
    List<String> held = new CopyOnWriteArrayList<>();
    AtomicInteger submitted = new AtomicInteger();
    AtomicInteger authenticated = new AtomicInteger();
    java.util.concurrent.Executor checking =
        task -> {
          submitted.incrementAndGet();
          noteHeld("execute", held);
          if (onCaller) {
            task.run();
          } else {
            own.execute(task);
          }
        };
    try {
      ThriftServer server =
          start(
              ServerSasl.builder()
                  .plain(
                      (user, password) -> {
                        authenticated.incrementAndGet();
                        noteHeld("authenticate", held);
                        return new String(password).equals(SaslPeers.USERS.get(user));
                      })
                  .plainWithoutTls(true)
                  .negotiationExecutor(checking)
                  .build());
      assertRefused(
          server,
          SaslPeers.plainClient("alice", "wrong"),
          "Peer indicated failure: authentication failed");
      BenchService.Client client = open(server, SaslPeers.plainClient("bob", "bob's"));
      assertThat(echo(client, ByteBuffer.wrap(new byte[] {6}))).isEqualTo(new byte[] {6});
      clients.forEach(SaslPeers::closeQuietly);
      await("every connection closed")
          .atMost(WITHIN)
          .untilAsserted(
              () ->
                  assertThat(server.stats().openConnections() == 0)
                      .as("%s", server.stats())
                      .isTrue());

      assertThat(submitted.get()).as("steps submitted").isGreaterThanOrEqualTo(2);
      assertThat(authenticated.get()).as("credentials checked").isEqualTo(2);
      assertThat(held).as("library locks held while the application's code ran").isEmpty();
      assertThat(heldInListeners).as("library locks held in connection listeners").isEmpty();
    } finally {
      own.shutdownNow();
    }
  }

  // ---- identity in interceptors
  // ------------------------------------------------------------------

  /** Refuses calls of a SASL connection whose authorization id is not on the list. */
  static final class SaslAllowList implements ServerInterceptor {
    private final Set<String> allowed;

    SaslAllowList(Set<String> allowed) {
      this.allowed = allowed;
    }

    @Override
    public void beforeCall(ServerCallContext context) throws TApplicationException {
      String id = context.sasl().map(SaslIdentity::authorizationId).orElse(null);
      if (id == null || !allowed.contains(id)) {
        throw new TApplicationException(
            TApplicationException.UNSUPPORTED_CLIENT_TYPE,
            (id == null ? "a caller without SASL" : id) + " may not call " + context.methodName());
      }
    }
  }

  @Test
  void anAllowListByAuthorizationIdRefusesOthersAndLetsTheListedThrough() throws Exception {
    ThriftServer server = start(new SaslAllowList(Set.of("alice")));
    BenchService.Client bob = open(server, SaslPeers.plainClient("bob", "bob's"));
    assertThatThrownBy(() -> echo(bob, ByteBuffer.wrap(new byte[] {1})))
        .isInstanceOf(TApplicationException.class)
        .hasMessage("bob may not call echo");
    assertThat(seen.get()).as("the handler never ran").isNull();

    BenchService.Client alice =
        open(server, SaslPeers.digestClient("alice", "alice-secret", SaslQop.AUTH_INT));
    assertThat(echo(alice, ByteBuffer.wrap(new byte[] {7}))).isEqualTo(new byte[] {7});
    assertThat(seen.get().authorizationId()).isEqualTo("alice");
  }

  // ---- the wrong wire
  // ----------------------------------------------------------------------------

  @Test
  void aFramedClientOnASaslOnlyPortFailsAtOnce() throws Exception {
    ThriftServer server =
        newServerBuilder()
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .ioStrategy(strategy())
            .wireKinds(WireKind.SASL)
            .sasl(ServerSasl.builder().plain((u, p) -> true).plainWithoutTls(true).build())
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build()
            .start();
    servers.add(server);
    long began = System.nanoTime();
    try (TFramedTransport framed =
        new TFramedTransport(
            new TSocket("127.0.0.1", server.localAddress().getPort(), SOCKET_TIMEOUT_MILLIS))) {
      framed.open();
      BenchService.Client client = new BenchService.Client(new TBinaryProtocol(framed));
      assertThatThrownBy(() -> echo(client, ByteBuffer.wrap(new byte[] {1})))
          .isInstanceOf(TTransportException.class);
    }
    assertThat(Duration.ofNanos(System.nanoTime() - began))
        .as("closed at once, not at the socket timeout")
        .isLessThan(Duration.ofMillis(SOCKET_TIMEOUT_MILLIS / 2));
    await("the refusal counted")
        .atMost(WITHIN)
        .untilAsserted(
            () -> assertThat(server.stats().badFrames() == 1).as("%s", server.stats()).isTrue());
  }

  @Test
  void aSaslClientOnAFramedOnlyPortFailsAtOnce() throws Exception {
    ThriftServer server =
        newServerBuilder()
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .ioStrategy(strategy())
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build()
            .start();
    servers.add(server);
    long began = System.nanoTime();
    assertThatThrownBy(() -> open(server, SaslPeers.plainClient("bob", "bob's")))
        .isInstanceOf(TTransportException.class);
    assertThat(Duration.ofNanos(System.nanoTime() - began))
        .as("closed at once, not at the socket timeout")
        .isLessThan(Duration.ofMillis(SOCKET_TIMEOUT_MILLIS / 2));
    await("the refusal counted")
        .atMost(WITHIN)
        .untilAsserted(
            () -> assertThat(server.stats().badFrames() == 1).as("%s", server.stats()).isTrue());
  }
}
