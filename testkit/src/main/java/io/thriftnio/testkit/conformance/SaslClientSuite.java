package io.thriftnio.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.sasl.ClientSasl;
import io.thriftnio.core.sasl.SaslNegotiationException;
import io.thriftnio.core.sasl.SaslQop;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.Payloads;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.sasl.LibthriftSaslServer;
import io.thriftnio.testkit.sasl.TestKdc;
import io.thriftnio.testkit.tls.TestPki;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.security.auth.Subject;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.server.TServer;
import org.apache.thrift.server.TThreadPoolServer;
import org.apache.thrift.transport.TServerSocket;
import org.apache.thrift.transport.layered.TFramedTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * This library's SASL clients ({@code ClientOptions.wireKind(WireKind.SASL)}): the sync transport
 * and the channel of one {@link ClientIo}, against libthrift's own blocking {@code
 * TSaslServerTransport} ({@link LibthriftSaslServer}) with DIGEST-MD5 and with GSSAPI (Kerberos,
 * the JVM's {@link TestKdc}) under each quality of protection, and the ways a negotiation fails: a
 * wrong password, a framed-only server, a server that never answers. An IO adapter runs it through
 * a one-method subclass.
 */
@Timeout(60)
public abstract class SaslClientSuite {

  private static final String USER = "alice";
  private static final char[] PASSWORD = "secret".toCharArray();

  private final List<AutoCloseable> closeAfter = new ArrayList<>();

  /** The resources under test; the suite does not close them. */
  protected abstract ClientIo resources();

  @AfterEach
  void closeEverything() throws Exception {
    for (int i = closeAfter.size() - 1; i >= 0; i--) {
      closeAfter.get(i).close();
    }
  }

  /** The client shapes under test. */
  public enum Shape {
    SYNC,
    CHANNEL
  }

  private static ClientOptions options(ClientSasl sasl) {
    return ClientOptions.builder().wireKind(WireKind.SASL).sasl(sasl).build();
  }

  private BenchService.Iface connect(Shape shape, InetSocketAddress address, ClientSasl sasl)
      throws Exception {
    ClientOptions options = options(sasl);
    ClientKind kind =
        shape == Shape.SYNC
            ? ClientKinds.syncTransport("sasl-sync", a -> resources().openTransport(a, options))
            : ClientKinds.channel("sasl-channel", a -> resources().openChannel(a, options));
    BenchConnection connection = kind.connect(address, new TBinaryProtocol.Factory());
    closeAfter.add(connection);
    return connection.iface();
  }

  private static void open(ClientIo io, Shape shape, InetSocketAddress address, ClientSasl sasl)
      throws Exception {
    AutoCloseable opened =
        shape == Shape.SYNC
            ? io.openTransport(address, options(sasl))
            : io.openChannel(address, options(sasl));
    opened.close();
  }

  private LibthriftSaslServer digestServer() throws Exception {
    LibthriftSaslServer server = LibthriftSaslServer.digestMd5(USER, PASSWORD);
    closeAfter.add(server);
    return server;
  }

  /** Echoes a small payload and one above 64 KiB (DIGEST-MD5's default buffer) both ways. */
  private static void echoes(BenchService.Iface client) throws Exception {
    for (int size : new int[] {16, 200_000}) {
      ByteBuffer payload = Payloads.of(size, size);
      assertThat(client.echo(payload.duplicate())).isEqualTo(payload);
    }
  }

  @ParameterizedTest(name = "{0} {1}")
  @EnumSource(SaslQop.class)
  void digestMd5WithEachQualityOfProtectionAgainstLibthriftsServer(SaslQop qop) throws Exception {
    for (Shape shape : Shape.values()) {
      LibthriftSaslServer server = digestServer();
      ClientSasl sasl =
          ClientSasl.digestMd5(USER, PASSWORD, LibthriftSaslServer.PROTOCOL, TestKdc.HOST)
              .withQop(qop);

      echoes(connect(shape, server.address(), sasl));

      assertThat(server.negotiated()).as(shape.name()).containsExactly(USER + " " + qop.saslName());
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Shape.class)
  void digestMd5InsideTlsAgainstLibthriftsServer(Shape shape) throws Exception {
    TestPki pki = TestPki.shared();
    LibthriftSaslServer server =
        LibthriftSaslServer.digestMd5(USER, PASSWORD, pki.sslContext(pki.serverKeys()));
    closeAfter.add(server);
    ClientSasl sasl =
        ClientSasl.digestMd5(USER, PASSWORD, LibthriftSaslServer.PROTOCOL, TestKdc.HOST)
            .withQop(SaslQop.AUTH_INT);
    ClientOptions options =
        ClientOptions.builder()
            .wireKind(WireKind.SASL)
            .sasl(sasl)
            .tls(pki.clientTls().build())
            .build();
    ClientKind kind =
        shape == Shape.SYNC
            ? ClientKinds.syncTransport("sasl-tls-sync", a -> resources().openTransport(a, options))
            : ClientKinds.channel("sasl-tls-channel", a -> resources().openChannel(a, options));
    BenchConnection connection = kind.connect(server.address(), new TBinaryProtocol.Factory());
    closeAfter.add(connection);

    echoes(connection.iface());

    assertThat(server.negotiated()).containsExactly(USER + " auth-int");
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(SaslQop.class)
  void gssapiWithEachQualityOfProtectionAgainstLibthriftsServer(SaslQop qop) throws Exception {
    TestKdc kdc = TestKdc.shared();
    LibthriftSaslServer server = LibthriftSaslServer.gssapi(kdc);
    closeAfter.add(server);
    Subject client = kdc.login("sasl-suite-client");
    ClientSasl sasl =
        ClientSasl.gssapi(client, LibthriftSaslServer.PROTOCOL, TestKdc.HOST).withQop(qop);

    for (Shape shape : Shape.values()) {
      echoes(connect(shape, server.address(), sasl));
    }

    String expected = kdc.principal("sasl-suite-client") + " " + qop.saslName();
    assertThat(server.negotiated()).containsExactly(expected, expected);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Shape.class)
  void aNewConnectionNegotiatesWithTheCredentialsTheSubjectHoldsThen(Shape shape) throws Exception {
    TestKdc kdc = TestKdc.shared();
    LibthriftSaslServer server = LibthriftSaslServer.gssapi(kdc);
    closeAfter.add(server);
    Subject subject = kdc.login("sasl-renew-before");
    ClientSasl sasl = ClientSasl.gssapi(subject, LibthriftSaslServer.PROTOCOL, TestKdc.HOST);
    open(resources(), shape, server.address(), sasl);

    // What an application's re-login does to a long-lived Subject: new credentials, same object.
    Subject fresh = kdc.login("sasl-renew-after");
    subject.getPrincipals().clear();
    subject.getPrincipals().addAll(fresh.getPrincipals());
    subject.getPrivateCredentials().clear();
    subject.getPrivateCredentials().addAll(fresh.getPrivateCredentials());
    open(resources(), shape, server.address(), sasl);

    assertThat(server.awaitNegotiated(2))
        .containsExactly(
            kdc.principal("sasl-renew-before") + " auth",
            kdc.principal("sasl-renew-after") + " auth");
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Shape.class)
  void aWrongPasswordFailsWithTheServersReason(Shape shape) throws Exception {
    LibthriftSaslServer server = digestServer();
    ClientSasl wrong =
        ClientSasl.digestMd5(
            USER, "wrong".toCharArray(), LibthriftSaslServer.PROTOCOL, TestKdc.HOST);

    assertThatThrownBy(() -> open(resources(), shape, server.address(), wrong))
        .isInstanceOfSatisfying(
            SaslNegotiationException.class,
            e -> {
              assertThat(e.mechanism()).isEqualTo("DIGEST-MD5");
              assertThat(e.peer()).isEqualTo(server.address());
              // The JDK's DIGEST-MD5 server's own words, sent in libthrift's BAD message.
              assertThat(e.reason()).contains("DIGEST-MD5").contains("response");
            })
        .hasMessageContaining("SASL DIGEST-MD5 negotiation with")
        .hasMessageContaining(String.valueOf(server.address().getPort()));
    assertThat(server.negotiated()).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Shape.class)
  void aFramedOnlyServerFailsTheNegotiationAtOnce(Shape shape) throws Exception {
    TServerSocket socket =
        new TServerSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    TServer framed =
        new TThreadPoolServer(
            new TThreadPoolServer.Args(socket)
                .transportFactory(new TFramedTransport.Factory())
                .processor(new BenchService.Processor<>(new BenchHandler())));
    Thread serving = new Thread(framed::serve, "framed-only-server");
    serving.setDaemon(true);
    serving.start();
    closeAfter.add(framed::stop);
    InetSocketAddress address =
        new InetSocketAddress(
            InetAddress.getLoopbackAddress(), socket.getServerSocket().getLocalPort());
    ClientSasl sasl =
        ClientSasl.digestMd5(USER, PASSWORD, LibthriftSaslServer.PROTOCOL, TestKdc.HOST)
            .withNegotiationTimeout(Duration.ofSeconds(50));

    long start = System.nanoTime();
    assertThatThrownBy(() -> open(resources(), shape, address, sasl))
        .isInstanceOf(SaslNegotiationException.class)
        .hasMessageContaining("may not accept SASL");
    // It reads START's first bytes as a frame length over its limit and closes: no waiting for
    // the negotiation timeout.
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(25));
  }

  /** What a hostile or confused server answers the client's first messages with. */
  public enum HostileAnswer {
    /** An {@code OK} whose length says 2 GB: refused before anything is allocated. */
    LYING_LENGTH(new byte[] {2, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff}, "2147483647"),
    /** A framed reply, as from a server that does not speak SASL. */
    FRAMED_REPLY(new byte[] {0, 0, 0, 4, (byte) 0x80, 1, 0, 2}, "may not speak SASL"),
    /** Half a message, then the connection closes. */
    TRUNCATED(new byte[] {2, 0, 0, 0, 10, 1, 2}, "closed the connection during the negotiation");

    final byte[] bytes;
    final String says;

    HostileAnswer(byte[] bytes, String says) {
      this.bytes = bytes;
      this.says = says;
    }
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("hostileAnswers")
  void aHostileAnswerFailsTheNegotiationAtOnceSayingWhat(Shape shape, HostileAnswer answer)
      throws Exception {
    ServerSocket peer = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    closeAfter.add(peer);
    Thread answering =
        new Thread(
            () -> {
              try (Socket s = peer.accept()) {
                s.getInputStream().read(new byte[64]); // START's first bytes, at least
                s.getOutputStream().write(answer.bytes);
                s.getOutputStream().flush();
                if (answer != HostileAnswer.TRUNCATED) {
                  s.getInputStream().read(); // held open until the client gives up
                }
              } catch (IOException e) {
                // the client closed first, or the listener closed at the end of the test
              }
            },
            "hostile-sasl-peer");
    answering.setDaemon(true);
    answering.start();
    InetSocketAddress address =
        new InetSocketAddress(InetAddress.getLoopbackAddress(), peer.getLocalPort());
    ClientSasl sasl =
        ClientSasl.digestMd5(USER, PASSWORD, LibthriftSaslServer.PROTOCOL, TestKdc.HOST)
            .withNegotiationTimeout(Duration.ofSeconds(50));

    long start = System.nanoTime();
    assertThatThrownBy(() -> open(resources(), shape, address, sasl))
        .isInstanceOfSatisfying(
            SaslNegotiationException.class, e -> assertThat(e.reason()).contains(answer.says));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(25));
  }

  static Stream<Arguments> hostileAnswers() {
    List<Arguments> all = new ArrayList<>();
    for (Shape shape : Shape.values()) {
      for (HostileAnswer answer : HostileAnswer.values()) {
        all.add(Arguments.of(shape, answer));
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Shape.class)
  void aServerThatNeverAnswersFailsAfterTheNegotiationTimeout(Shape shape) throws Exception {
    ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    closeAfter.add(silent);
    List<Socket> accepted = new ArrayList<>();
    Thread acceptor =
        new Thread(
            () -> {
              try {
                while (true) {
                  Socket s = silent.accept(); // held open, never answered
                  synchronized (accepted) {
                    accepted.add(s);
                  }
                }
              } catch (IOException e) {
                // the listener closed at the end of the test
              }
            },
            "silent-server");
    acceptor.setDaemon(true);
    acceptor.start();
    closeAfter.add(
        () -> {
          synchronized (accepted) {
            for (Socket s : accepted) {
              s.close();
            }
          }
        });
    InetSocketAddress address =
        new InetSocketAddress(InetAddress.getLoopbackAddress(), silent.getLocalPort());
    ClientSasl sasl =
        ClientSasl.digestMd5(USER, PASSWORD, LibthriftSaslServer.PROTOCOL, TestKdc.HOST)
            .withNegotiationTimeout(Duration.ofMillis(300));

    assertThatThrownBy(() -> open(resources(), shape, address, sasl))
        .isInstanceOfSatisfying(
            SaslNegotiationException.class,
            e -> assertThat(e.reason()).contains("no answer within PT0.3S"));
  }
}
