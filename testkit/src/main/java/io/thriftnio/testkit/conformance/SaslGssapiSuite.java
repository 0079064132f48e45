package io.thriftnio.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ServerCallContext;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.sasl.SaslIdentity;
import io.thriftnio.core.sasl.SaslQop;
import io.thriftnio.core.sasl.ServerSasl;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.sasl.SaslPeers;
import io.thriftnio.testkit.sasl.TestKdc;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import javax.security.auth.Subject;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.transport.TSaslClientTransport;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Kerberos for real: GSSAPI against the test KDC ({@link TestKdc}, principals and keytabs made per
 * run), the server's subject logged in from its keytab, libthrift's {@code TSaslClientTransport} as
 * the client inside {@code Subject.doAs} of the user's. Echo calls under {@code auth}, {@code
 * auth-int} and {@code auth-conf}, of 1 B and above GSSAPI's 64 KiB buffer; the identity the
 * handler sees is the client's principal; a quality of protection the server does not accept is
 * refused. A transport runs it once per strategy, one {@link ServerCell} each.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Matrix.Of(Matrix.PROTOCOLS)
public abstract class SaslGssapiSuite extends ServerCellSuite {

  private static final String SERVICE = "thrift";
  private static final int ABOVE_MAX_BUFFER = 200 * 1024;

  private final List<ThriftServer> servers = new ArrayList<>();
  private final List<TSaslClientTransport> clients = new ArrayList<>();
  private final AtomicReference<SaslIdentity> seen = new AtomicReference<>();

  @AfterEach
  void closeEverything() {
    clients.forEach(SaslPeers::closeQuietly);
    servers.forEach(ThriftServer::close);
  }

  private ThriftServer start(SaslQop... accepted) throws Exception {
    TestKdc kdc = TestKdc.shared();
    Subject service = kdc.login(SERVICE + "/" + TestKdc.HOST);
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
            .ioStrategy(strategy())
            .wireKinds(WireKind.SASL)
            .sasl(ServerSasl.builder().gssapi(service, SERVICE, TestKdc.HOST).qop(accepted).build())
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build();
    servers.add(server);
    return server.start();
  }

  /** A libthrift GSSAPI client of {@code user}, opened as that user. */
  private BenchService.Client open(ThriftServer server, String user, SaslQop qop) throws Exception {
    Subject subject = TestKdc.shared().login(user);
    SaslClient sasl =
        Sasl.createSaslClient(
            new String[] {"GSSAPI"},
            null,
            SERVICE,
            TestKdc.HOST,
            Map.of(Sasl.QOP, qop.saslName()),
            null);
    TSaslClientTransport transport = SaslPeers.transport(server.localAddress(), sasl, 10_000);
    clients.add(transport);
    Subject.doAs(
        subject,
        (PrivilegedExceptionAction<Void>)
            () -> {
              transport.open();
              return null;
            });
    return new BenchService.Client(new TBinaryProtocol(transport));
  }

  static Stream<Arguments> rows() {
    List<Arguments> rows = new ArrayList<>();
    for (SaslQop qop : SaslQop.values()) {
      rows.add(Arguments.of(qop, 1));
      rows.add(Arguments.of(qop, ABOVE_MAX_BUFFER));
    }
    return rows.stream();
  }

  @ParameterizedTest(name = "GSSAPI {0}, {1} bytes")
  @MethodSource("rows")
  void kerberosEchoesUnderEachQop(SaslQop qop, int size) throws Exception {
    ThriftServer server = start(SaslQop.AUTH_CONF, SaslQop.AUTH_INT, SaslQop.AUTH);
    BenchService.Client client = open(server, "alice", qop);
    byte[] sent = new byte[size];
    for (int i = 0; i < size; i++) {
      sent[i] = (byte) (i * 17);
    }
    for (int call = 0; call < 3; call++) {
      ByteBuffer got = client.echo(ByteBuffer.wrap(sent));
      byte[] bytes = new byte[got.remaining()];
      got.get(bytes);
      assertThat(bytes).isEqualTo(sent);
    }
    assertThat(seen.get())
        .isEqualTo(new SaslIdentity("GSSAPI", TestKdc.shared().principal("alice"), qop));
    assertThat(server.stats().saslFailures()).isZero();
  }

  @Test
  void aQopTheServerDoesNotAcceptIsRefused() throws Exception {
    ThriftServer server = start(SaslQop.AUTH_CONF);
    assertThatThrownBy(() -> open(server, "alice", SaslQop.AUTH))
        .isInstanceOf(Exception.class)
        .satisfies(
            e -> {
              Throwable root = e;
              while (root.getCause() != null && !(root instanceof TTransportException)) {
                root = root.getCause();
              }
              assertThat(root).isInstanceOf(TTransportException.class);
            });
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (server.stats().saslFailures() != 1 && System.nanoTime() < deadline) {
      Thread.sleep(10); // polling a counter the server's threads change
    }
    assertThat(server.stats().saslFailures()).isEqualTo(1);
  }
}
