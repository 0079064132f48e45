package io.thriftnio.testkit.conformance;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.thriftnio.core.AsyncClients;
import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.IoStrategy;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ServerStats;
import io.thriftnio.core.ThriftChannel;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.tls.ClientTls;
import io.thriftnio.core.tls.ServerTls;
import io.thriftnio.core.tls.TlsProvider;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.tls.ResettingPeer;
import io.thriftnio.testkit.tls.TestPki;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.thrift.async.AsyncMethodCallback;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSSLTransportFactory;
import org.apache.thrift.transport.TSocket;
import org.apache.thrift.transport.TTransport;
import org.apache.thrift.transport.TTransportException;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * TLS on a transport's server and clients, written once: handshakes on every strategy, mutual TLS,
 * host names, the failures a server counts ({@link ServerStats#tlsFailures()}), the errors a client
 * gets, a stock {@code TSSLTransportFactory} client, and the OpenSSL provider where the transport
 * has it. A case the transport cannot run (a strategy it lacks, OpenSSL on a JDK-only transport,
 * buffers it cannot count) is skipped with the reason, never left out.
 *
 * <p>A subclass names the transport's server builder, its client IO and what it supports:
 *
 * <pre>
 * class NettyTlsTest extends TlsSuite {
 *   protected ServerBuilder&lt;?&gt; newServerBuilder() { return NettyThriftServer.builder(); }
 *   protected ClientIo clientIo() { return NettyClientKinds.RESOURCES; }
 *   ...
 * }
 * </pre>
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class TlsSuite {

  private static final TestPki PKI = TestPki.shared();
  private static final Duration WITHIN = Duration.ofSeconds(20);

  private final List<AutoCloseable> open = new ArrayList<>();

  /** A fresh builder of the transport's server; the suite adds the rest. */
  protected abstract ServerBuilder<?> newServerBuilder();

  /** The strategies the transport's server has. */
  protected abstract Set<IoStrategy> strategies();

  /**
   * The client IO the suite's clients run on, shared: the suite closes the clients it opens, not
   * the IO.
   */
  protected abstract ClientIo clientIo();

  /**
   * Aborts the calling case (JUnit reports it skipped, with the reason) where the OpenSSL provider
   * cannot run here, or fails it where it is required; returns where it runs.
   */
  protected abstract void assumeOpenSsl();

  /**
   * The provider the transport's TLS engine for {@code tls} runs on (its server context checked to
   * be a server's), so that a case can tell that {@link TlsProvider#OPENSSL} was really used.
   */
  protected abstract TlsProvider serverProvider(ServerTls tls);

  /** The provider the transport's TLS engine for {@code tls} runs on, as for the server. */
  protected abstract TlsProvider clientProvider(ClientTls tls);

  /**
   * Makes every buffer of the servers that {@code builder} builds counted, and returns the count;
   * aborts the calling case (with the reason) where the transport cannot count them. Default:
   * aborts.
   */
  protected BufferCount countBuffers(ServerBuilder<?> builder) {
    Assumptions.abort(getClass().getSimpleName() + ": the transport cannot count its buffers");
    throw new AssertionError("unreachable");
  }

  /** The buffers of a server that {@link #countBuffers} made counted. */
  protected interface BufferCount {
    /** How many buffers were allocated. */
    long allocations();

    /** Fails, naming them, if any allocated buffer was not released. */
    void assertAllReleased();
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
    open.clear();
  }

  private ThriftServer server(ServerTls tls) throws Exception {
    return server(tls, IoStrategy.WORKER);
  }

  private ThriftServer server(ServerTls tls, IoStrategy strategy) throws Exception {
    ServerBuilder<?> builder = Workers.strategy(newServerBuilder(), strategy, 4);
    ThriftServer server =
        builder
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .ioThreads(1)
            .tls(tls)
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build()
            .start();
    open.add(server);
    return server;
  }

  private static ClientOptions options(ClientTls tls) {
    return ClientOptions.builder().tls(tls).build();
  }

  private BenchService.Client syncClient(InetSocketAddress address, ClientTls tls)
      throws TTransportException {
    TTransport transport = clientIo().openTransport(address, options(tls));
    open.add(transport);
    return new BenchService.Client(new TBinaryProtocol(transport));
  }

  private BenchService.AsyncIface asyncClient(InetSocketAddress address, ClientTls tls)
      throws TTransportException {
    ThriftChannel channel = clientIo().openChannel(address, options(tls));
    open.add(channel);
    return AsyncClients.asyncIface(
        BenchService.AsyncIface.class,
        channel,
        BenchService.Client::new,
        new TBinaryProtocol.Factory(),
        ForkJoinPool.commonPool());
  }

  private static void awaitStats(
      String what, ThriftServer server, Predicate<ServerStats> condition) {
    await(what)
        .atMost(WITHIN)
        .untilAsserted(
            () -> {
              ServerStats stats = server.stats();
              assertThat(condition.test(stats)).as("%s; %s", what, stats).isTrue();
            });
  }

  @ParameterizedTest
  @EnumSource(IoStrategy.class)
  void syncTransportAndAsyncChannelCallOverTls(IoStrategy strategy) throws Exception {
    assumeTrue(
        strategies().contains(strategy),
        () -> getClass().getSimpleName() + ": the server has no " + strategy);
    ThriftServer server = server(PKI.serverTls().build(), strategy);
    ClientTls tls = PKI.clientTls().build();
    BenchService.Client sync = syncClient(server.localAddress(), tls);
    ByteBuffer payload = Payloads.of(Payloads.LARGE, 3);
    assertThat(Payloads.check(sync.echo(payload), Payloads.LARGE, 3)).isTrue();
    assertThat(sync.get_last_sale("TLS").getSymbol()).isEqualTo("TLS");

    BenchService.AsyncIface async = asyncClient(server.localAddress(), tls);
    CompletableFuture<ByteBuffer> echoed = new CompletableFuture<>();
    async.echo(Payloads.of(Payloads.MEDIUM, 5), callback(echoed));
    assertThat(Payloads.check(echoed.get(20, TimeUnit.SECONDS), Payloads.MEDIUM, 5)).isTrue();
    assertThat(server.stats().tlsFailures()).isZero();
  }

  /**
   * Every pairing of providers that includes OpenSSL: OpenSSL on the server, on the client, or on
   * both, with client certificates, over both client shapes.
   */
  @ParameterizedTest(name = "server {0}, client {1}")
  @CsvSource({"OPENSSL, OPENSSL", "OPENSSL, JDK", "JDK, OPENSSL"})
  void openSslServesAndCallsOverMutualTlsWithEitherPeerOnTheJdk(
      TlsProvider serverProvider, TlsProvider clientProvider) throws Exception {
    assumeOpenSsl();
    ServerTls serverTls = PKI.mutualServerTls().provider(serverProvider).build();
    assertThat(serverProvider(serverTls)).as("the server's provider").isEqualTo(serverProvider);
    ThriftServer server = server(serverTls, IoStrategy.SAME_THREAD);
    ClientTls tls =
        PKI.clientTls().keyManagerFactory(PKI.clientKeys()).provider(clientProvider).build();
    assertThat(clientProvider(tls)).as("the client's provider").isEqualTo(clientProvider);

    BenchService.Client sync = syncClient(server.localAddress(), tls);
    assertThat(Payloads.check(sync.echo(Payloads.of(Payloads.LARGE, 4)), Payloads.LARGE, 4))
        .isTrue();
    BenchService.AsyncIface async = asyncClient(server.localAddress(), tls);
    CompletableFuture<ByteBuffer> echoed = new CompletableFuture<>();
    async.echo(Payloads.of(Payloads.MEDIUM, 6), callback(echoed));
    assertThat(Payloads.check(echoed.get(20, TimeUnit.SECONDS), Payloads.MEDIUM, 6)).isTrue();

    // An OpenSSL server still refuses a client without a certificate, and counts it.
    assertThatThrownBy(
            () ->
                syncClient(server.localAddress(), PKI.clientTls().provider(clientProvider).build())
                    .get_last_sale("x"))
        .isInstanceOf(TTransportException.class);
    awaitStats("the certificate-less client to be counted", server, s -> s.tlsFailures() == 1);
  }

  @Test
  void mutualTlsRejectsMissingAndUntrustedClientCertificatesAndAcceptsTheRightOne()
      throws Exception {
    ThriftServer server = server(PKI.mutualServerTls().build());
    InetSocketAddress address = server.localAddress();

    assertThatThrownBy(() -> syncClient(address, PKI.clientTls().build()).get_last_sale("x"))
        .isInstanceOf(TTransportException.class);
    awaitStats("the certificate-less client to be counted", server, s -> s.tlsFailures() >= 1);

    ClientTls wrongCa = PKI.clientTls().keyManagerFactory(PKI.wrongCaClientKeys()).build();
    assertThatThrownBy(() -> syncClient(address, wrongCa).get_last_sale("x"))
        .isInstanceOf(TTransportException.class);
    awaitStats("the untrusted client to be counted", server, s -> s.tlsFailures() >= 2);

    ClientTls right = PKI.clientTls().keyManagerFactory(PKI.clientKeys()).build();
    assertThat(syncClient(address, right).get_last_sale("mtls").getSymbol()).isEqualTo("mtls");
    assertThat(server.stats().tlsFailures()).isEqualTo(2);
  }

  @Test
  void hostnameVerificationRejectsACertificateForAnotherNameUnlessTurnedOff() throws Exception {
    ThriftServer server = server(ServerTls.builder(PKI.otherNameServerKeys()).build());
    InetSocketAddress address = server.localAddress(); // 127.0.0.1, not other.example

    assertThatThrownBy(() -> syncClient(address, PKI.clientTls().build()))
        .isInstanceOf(TTransportException.class)
        .hasMessageStartingWith("TLS handshake with " + address + " failed: ")
        .hasMessageContaining("127.0.0.1");

    ClientTls unchecked = PKI.clientTls().hostnameVerification(false).build();
    assertThat(syncClient(address, unchecked).get_last_sale("off").getSymbol()).isEqualTo("off");

    ClientTls named = PKI.clientTls().serverName(TestPki.OTHER_NAME).build();
    assertThat(syncClient(address, named).get_last_sale("sni").getSymbol()).isEqualTo("sni");
  }

  @Test
  void aPlainTextClientIsClosedAndCountedWithoutLeaking() throws Exception {
    ThriftServer server = server(PKI.serverTls().build());
    try (RawConnection plain = RawConnection.open(server.localAddress())) {
      plain.writeFrame(
          RawConnection.encodeCall(
              new TBinaryProtocol.Factory(),
              "get_last_sale",
              1,
              new BenchService.get_last_sale_args("plain")));
      byte[] answered = plain.awaitClosedBy(WITHIN);
      assertThat(answered.length).as("bytes before the close").isLessThan(1024);
    }
    awaitStats(
        "the plain-text connection to be counted and gone",
        server,
        s -> s.tlsFailures() == 1 && s.openConnections() == 0);
    assertThat(server.stats().badFrames()).isZero();
    // The server still serves TLS clients.
    assertThat(
            syncClient(server.localAddress(), PKI.clientTls().build())
                .get_last_sale("ok")
                .getSymbol())
        .isEqualTo("ok");
  }

  @ParameterizedTest
  @EnumSource(TlsProvider.class)
  void releasesEveryBufferThroughGoodBadAndSilentTlsPeers(TlsProvider provider) throws Exception {
    if (provider == TlsProvider.OPENSSL) {
      assumeOpenSsl();
    }
    ServerBuilder<?> builder = newServerBuilder();
    BufferCount buffers = countBuffers(builder);
    ThriftServer server =
        builder
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .ioThreads(1)
            .workerThreads(2)
            // Long enough for the good handshakes on a loaded machine, short enough to wait for.
            .tls(
                PKI.mutualServerTls()
                    .provider(provider)
                    .handshakeTimeout(Duration.ofSeconds(3))
                    .build())
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build()
            .start();
    InetSocketAddress address = server.localAddress();
    try {
      ClientTls good =
          PKI.clientTls().keyManagerFactory(PKI.clientKeys()).provider(provider).build();
      BenchService.Client client = syncClient(address, good);
      assertThat(Payloads.check(client.echo(Payloads.of(Payloads.MEDIUM, 1)), Payloads.MEDIUM, 1))
          .isTrue();
      ClientTls certificateLess = PKI.clientTls().provider(provider).build();
      assertThatThrownBy(() -> syncClient(address, certificateLess).get_last_sale("x"))
          .isInstanceOf(TTransportException.class);
      try (RawConnection plain = RawConnection.open(address)) {
        plain.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes());
        plain.awaitClosedBy(WITHIN);
      }
      try (RawConnection silent = RawConnection.open(address)) {
        silent.awaitClosedBy(WITHIN);
      }
      awaitStats("three failed handshakes", server, s -> s.tlsFailures() == 3);
    } finally {
      closeAll();
      server.close();
    }
    assertThat(buffers.allocations()).isPositive();
    buffers.assertAllReleased();
  }

  @Test
  void aTcpProbeThatClosesWithoutSpeakingIsNotATlsFailure() throws Exception {
    ThriftServer server = server(PKI.serverTls().build());
    RawConnection.open(server.localAddress()).close();
    awaitStats(
        "the probe to be gone",
        server,
        s -> s.acceptedConnections() == 1 && s.openConnections() == 0);
    // One IO thread: this handshake runs after the probe's close has been handled.
    assertThat(
            syncClient(server.localAddress(), PKI.clientTls().build())
                .get_last_sale("after")
                .getSymbol())
        .isEqualTo("after");
    assertThat(server.stats().tlsFailures()).isZero();
  }

  /**
   * A peer that resets every connection at once often closes it while the client sets up its
   * connect or handshake (on Netty, before connect() returns, with the pipeline already emptied);
   * the caller must still get a clear TTransportException, every time.
   */
  @Test
  void aTlsClientAgainstAPeerThatResetsAtOnceAlwaysFailsWithAClearError() throws Exception {
    ClientTls tls = PKI.clientTls().build();
    try (ResettingPeer peer = ResettingPeer.start()) {
      // The race is lost about once in a few hundred connects: 500 make a regression show.
      peer.assertEveryConnectFailsClearly(
          500, "cannot connect to ", () -> syncClient(peer.address(), tls));
    }
  }

  @Test
  void aTlsClientAgainstAPlainServerFailsWithAClearError() throws Exception {
    ThriftServer server = server(null);
    assertThatThrownBy(() -> syncClient(server.localAddress(), PKI.clientTls().build()))
        .isInstanceOf(TTransportException.class)
        .hasMessageStartingWith("TLS handshake with " + server.localAddress() + " failed");
    assertThatThrownBy(() -> asyncClient(server.localAddress(), PKI.clientTls().build()))
        .isInstanceOf(TTransportException.class)
        .hasMessageStartingWith("TLS handshake with " + server.localAddress() + " failed");
  }

  @Test
  void theHandshakeTimeoutClosesAClientThatNeverSpeaksTls() throws Exception {
    ThriftServer server = server(PKI.serverTls().handshakeTimeout(Duration.ofMillis(200)).build());
    try (RawConnection silent = RawConnection.open(server.localAddress())) {
      silent.awaitClosedBy(WITHIN);
    }
    awaitStats(
        "the timed-out handshake to be counted",
        server,
        s -> s.tlsFailures() == 1 && s.openConnections() == 0);
    assertThat(server.stats().timedOutConnections()).isZero();
  }

  @Test
  void aClientHandshakeTimeoutFailsTheConnectWithTimedOut() throws Exception {
    try (ServerSocket mute = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      InetSocketAddress address = new InetSocketAddress(mute.getInetAddress(), mute.getLocalPort());
      ClientTls impatient = PKI.clientTls().handshakeTimeout(Duration.ofMillis(200)).build();
      assertThatThrownBy(() -> syncClient(address, impatient))
          .isInstanceOfSatisfying(
              TTransportException.class,
              e -> assertThat(e.getType()).isEqualTo(TTransportException.TIMED_OUT))
          .hasMessageContaining("TLS handshake with " + address);
    }
  }

  @Test
  void aStockThriftSslSocketClientTalksToTheTlsServer() throws Exception {
    ThriftServer server = server(PKI.serverTls().build());
    TSSLTransportFactory.TSSLTransportParameters params =
        new TSSLTransportFactory.TSSLTransportParameters();
    params.setTrustStore(PKI.trustStoreFile().getPath(), "changeit", null, "PKCS12");
    InetSocketAddress a = server.localAddress();
    TSocket socket =
        TSSLTransportFactory.getClientSocket(a.getHostString(), a.getPort(), 30_000, params);
    TTransport framed = new TFramedTransport(socket);
    open.add(framed::close);
    BenchService.Client client = new BenchService.Client(new TBinaryProtocol(framed));
    assertThat(Payloads.check(client.echo(Payloads.of(Payloads.MEDIUM, 8)), Payloads.MEDIUM, 8))
        .isTrue();
    assertThat(client.db_work(4)).hasSize(4);
  }

  private static <T> AsyncMethodCallback<T> callback(CompletableFuture<T> f) {
    return new AsyncMethodCallback<>() {
      @Override
      public void onComplete(T response) {
        f.complete(response);
      }

      @Override
      public void onError(Exception exception) {
        f.completeExceptionally(exception);
      }
    };
  }
}
