package io.thriftnio.testkit.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.thriftnio.core.ClientIo;
import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.ServerBuilder;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.sasl.ClientSasl;
import io.thriftnio.core.sasl.ServerSasl;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.tls.TestPki;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.UnaryOperator;
import org.apache.thrift.TApplicationException;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TJSONProtocol;
import org.apache.thrift.protocol.TProtocolException;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A client of the wrong shape for its server, for real over a socket (issue 38, item 7): the
 * server's log line says what the bytes look like and the setting that would serve them, and the
 * client's error names the likely cause. Each text is the one {@code docs/guide/troubleshooting.md}
 * quotes. An IO adapter runs it through a subclass that gives its servers and client IO.
 *
 * <p>The log is read from {@code System.out}, where slf4j-simple writes it in tests (the parent pom
 * sets {@code org.slf4j.simpleLogger.logFile=System.out}, and {@code
 * org.slf4j.simpleLogger.log.io.thriftnio.core.internal.server.InvokerCall=info} for the protocol
 * line).
 */
@Timeout(60)
public abstract class WrongShapeSuite {

  private static final Duration WITHIN = Duration.ofSeconds(20);
  private static final TProtocolFactory BINARY = new TBinaryProtocol.Factory();
  private static final TProtocolFactory COMPACT = new TCompactProtocol.Factory();
  private static final TProtocolFactory JSON = new TJSONProtocol.Factory();
  private static final ClientOptions FRAMED = ClientOptions.builder().build();

  private final List<AutoCloseable> closeAfter = new ArrayList<>();
  private LogCapture log;

  /** A fresh builder of the server under test. */
  protected abstract ServerBuilder<?> newServerBuilder();

  /** The client IO under test; the suite does not close it. */
  protected abstract ClientIo resources();

  /** The client shapes under test. */
  public enum Shape {
    SYNC,
    CHANNEL
  }

  @BeforeEach
  void captureLog() {
    log = new LogCapture();
  }

  @AfterEach
  void closeEverything() throws Exception {
    try {
      for (int i = closeAfter.size() - 1; i >= 0; i--) {
        closeAfter.get(i).close();
      }
    } finally {
      log.close();
    }
  }

  private ThriftServer server(TProtocolFactory protocol, UnaryOperator<ServerBuilder<?>> how)
      throws Exception {
    ServerBuilder<?> b =
        newServerBuilder()
            .processor(new BenchService.Processor<>(new BenchHandler()))
            .protocol(protocol)
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    ThriftServer server = how.apply(b).build().start();
    closeAfter.add(server);
    return server;
  }

  /** One echo call over a new connection of {@code shape}; what it failed with. */
  private Throwable call(
      Shape shape, InetSocketAddress address, ClientOptions options, TProtocolFactory protocol) {
    ClientKind kind =
        shape == Shape.SYNC
            ? ClientKinds.syncTransport("sync", a -> resources().openTransport(a, options))
            : ClientKinds.channel("channel", a -> resources().openChannel(a, options));
    Throwable failure =
        catchThrowable(
            () -> {
              try (BenchConnection c = kind.connect(address, protocol)) {
                c.iface().echo(ByteBuffer.wrap(new byte[] {1, 2, 3}));
              }
            });
    while ((failure instanceof CompletionException || failure instanceof ExecutionException)
        && failure.getCause() != null) {
      failure = failure.getCause();
    }
    assertThat(failure).as("the call of a client of the wrong shape").isNotNull();
    return failure;
  }

  /** Waits for one log line containing {@code text}; returns it. */
  private String logged(String text) throws InterruptedException {
    long deadline = System.nanoTime() + WITHIN.toNanos();
    while (true) {
      List<String> lines = log.linesContaining(text);
      if (!lines.isEmpty()) {
        return lines.get(0);
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no log line containing: " + text);
      }
      Thread.sleep(10);
    }
  }

  // ---- the wire kind ---------------------------------------------------------------------------

  @ParameterizedTest
  @EnumSource(Shape.class)
  void anUnframedClientOnAFramedOnlyPortIsToldToAcceptUnframed(Shape shape) throws Exception {
    ThriftServer server = server(BINARY, b -> b);
    Throwable failure =
        call(
            shape,
            server.localAddress(),
            ClientOptions.builder().wireKind(WireKind.UNFRAMED).build(),
            BINARY);
    String hint =
        "first bytes 80 01 00 01 look like an unframed TBinaryProtocol message (a call): to serve"
            + " them, accept WireKind.UNFRAMED on this server"
            + " (ServerBuilder.wireKinds(FRAMED, UNFRAMED))";
    assertThat(failure).isInstanceOf(TApplicationException.class).hasMessageContaining(hint);
    assertThat(((TApplicationException) failure).getType())
        .isEqualTo(TApplicationException.PROTOCOL_ERROR);
    assertThat(logged(hint)).contains(" WARN ").contains("is invalid (expected: 1..");
  }

  @ParameterizedTest
  @EnumSource(Shape.class)
  void aTHeaderClientOnAPortWithoutHeaderIsToldToAcceptHeader(Shape shape) throws Exception {
    ThriftServer server = server(BINARY, b -> b);
    Throwable failure =
        call(
            shape,
            server.localAddress(),
            ClientOptions.builder().wireKind(WireKind.HEADER).build(),
            BINARY);
    assertThat(failure)
        .isInstanceOf(TTransportException.class)
        .hasMessageContaining(
            "(before any reply on this connection: does the server accept this client's shape,"
                + " ClientOptions.wireKind(HEADER), plaintext, and its protocol?");
    assertThat(
            logged(
                "look like a THeader frame: to serve them, accept WireKind.HEADER on this server"
                    + " (ServerBuilder.wireKinds(FRAMED, HEADER))"))
        .contains(" WARN ");
  }

  @ParameterizedTest
  @EnumSource(Shape.class)
  void aFramedClientOnAnUnframedOnlyPortIsToldToAcceptFramed(Shape shape) throws Exception {
    ThriftServer server = server(BINARY, b -> b.wireKinds(WireKind.UNFRAMED));
    Throwable failure = call(shape, server.localAddress(), FRAMED, BINARY);
    assertThat(failure)
        .isInstanceOf(TTransportException.class)
        .hasMessageContaining(
            "(before any reply on this connection: does the server accept this client's shape,"
                + " ClientOptions.wireKind(FRAMED), plaintext, and its protocol?");
    assertThat(
            logged(
                "look like a framed TBinaryProtocol message (a call): to serve them, accept"
                    + " WireKind.FRAMED on this server (ServerBuilder.wireKinds(FRAMED,"
                    + " UNFRAMED))"))
        .contains("refused (accepted: [UNFRAMED]): first bytes 00 00 00");
  }

  @Test
  void aSaslClientOnAFramedOnlyPortIsToldToAcceptSasl() throws Exception {
    ThriftServer server = server(BINARY, b -> b);
    ClientOptions sasl =
        ClientOptions.builder()
            .wireKind(WireKind.SASL)
            .sasl(ClientSasl.plain("bob", "secret".toCharArray()))
            .build();
    Throwable failure = call(Shape.SYNC, server.localAddress(), sasl, BINARY);
    assertThat(failure)
        .hasMessageContaining("it may not accept SASL (a framed-only server closes on the START");
    assertThat(
            logged(
                "first bytes 01 00 00 00 look like a SASL START message: to serve them, accept"
                    + " WireKind.SASL on this server (ServerBuilder.wireKinds(FRAMED, SASL) with"
                    + " ServerBuilder.sasl(..))"))
        .contains(" WARN ");
  }

  @Test
  void aFramedClientOnASaslOnlyPortIsToldToAcceptFramed() throws Exception {
    ThriftServer server =
        server(
            BINARY,
            b ->
                b.wireKinds(WireKind.SASL)
                    .sasl(
                        ServerSasl.builder().plain((u, p) -> true).plainWithoutTls(true).build()));
    Throwable failure = call(Shape.CHANNEL, server.localAddress(), FRAMED, BINARY);
    assertThat(failure)
        .hasMessageContaining("closed by the peer (before any reply on this connection");
    logged(
        "look like a framed TBinaryProtocol message (a call): to serve them, accept"
            + " WireKind.FRAMED on this server (ServerBuilder.wireKinds(FRAMED, SASL))");
  }

  // ---- TLS -------------------------------------------------------------------------------------

  @Test
  void aTlsClientOnAPlaintextPortIsToldSo() throws Exception {
    ThriftServer server = server(BINARY, b -> b);
    ClientOptions tls = ClientOptions.builder().tls(TestPki.shared().clientTls().build()).build();
    Throwable failure = call(Shape.SYNC, server.localAddress(), tls, BINARY);
    assertThat(failure)
        .isInstanceOf(TTransportException.class)
        .hasMessageContaining("TLS handshake with")
        .hasMessageContaining("is the server's port plaintext? (ServerBuilder.tls(..))");
    assertThat(
            logged(
                "look like a TLS handshake record: a TLS client on a plaintext port? Serve TLS"
                    + " with ServerBuilder.tls(..), or connect without ClientOptions.tls(..)"))
        .contains(" WARN ");
  }

  @ParameterizedTest
  @EnumSource(Shape.class)
  void aPlaintextClientOnATlsPortIsToldSo(Shape shape) throws Exception {
    ThriftServer server = server(BINARY, b -> b.tls(TestPki.shared().serverTls().build()));
    Throwable failure = call(shape, server.localAddress(), FRAMED, BINARY);
    assertThat(failure)
        .isInstanceOf(TTransportException.class)
        .hasMessageContaining(
            "(before any reply on this connection: does the server accept this client's shape,"
                + " ClientOptions.wireKind(FRAMED), plaintext,");
    logged("not a TLS record: a plaintext client on a TLS port? Connect it with ClientOptions.tls");
  }

  // ---- the protocol ----------------------------------------------------------------------------

  /** Pairs of a server's protocol and a client's other one. */
  public enum Mismatch {
    COMPACT_ON_BINARY(BINARY, COMPACT, "TBinaryProtocol", "TCompactProtocol"),
    BINARY_ON_COMPACT(COMPACT, BINARY, "TCompactProtocol", "TBinaryProtocol"),
    JSON_ON_BINARY(BINARY, JSON, "TBinaryProtocol", "TJSONProtocol"),
    BINARY_ON_JSON(JSON, BINARY, "TJSONProtocol", "TBinaryProtocol");

    final TProtocolFactory server;
    final TProtocolFactory client;
    final String serverName;
    final String clientName;

    Mismatch(TProtocolFactory server, TProtocolFactory client, String serverName, String name) {
      this.server = server;
      this.client = client;
      this.serverName = serverName;
      this.clientName = name;
    }
  }

  @ParameterizedTest
  @EnumSource(Mismatch.class)
  void aClientOfAnotherProtocolIsAnsweredInItsOwnAndLoggedOncePerPeer(Mismatch m) throws Exception {
    ThriftServer server = server(m.server, b -> b);
    for (Shape shape : Shape.values()) {
      Throwable failure = call(shape, server.localAddress(), FRAMED, m.client);
      assertThat(failure)
          .as(shape.name())
          .isInstanceOf(TApplicationException.class)
          .hasMessageStartingWith("request echo refused: the request is in " + m.clientName)
          .hasMessageEndingWith(
              ", this server reads " + m.serverName + " (ServerBuilder.protocol)");
    }
    String line = logged("arrive in " + m.clientName + " (first bytes ");
    assertThat(line)
        .contains(" INFO ")
        .contains(
            "; this server reads "
                + m.serverName
                + ": build the server with ServerBuilder.protocol(..) of its clients' protocol, or"
                + " the clients with "
                + m.serverName);
    assertThat(log.linesContaining("arrive in " + m.clientName))
        .as("two connections from one address: one line")
        .hasSize(1);
  }

  // ---- what a client reads from a server of the wrong shape ------------------------------------

  @ParameterizedTest
  @EnumSource(Shape.class)
  void aFramedClientReadingAnUnframedReplyIsAskedWhetherTheServerIsUnframed(Shape shape)
      throws Exception {
    // An unframed reply: 80 01 00 02, then a name and a seqid, as a stock unframed server writes.
    byte[] reply = {(byte) 0x80, 1, 0, 2, 0, 0, 0, 4, 'e', 'c', 'h', 'o', 0, 0, 0, 1, 0};
    StubPeer peer = answering(reply);
    Throwable failure = call(shape, peer.address, FRAMED, BINARY);
    assertThat(failure)
        .isInstanceOf(TTransportException.class)
        .hasMessageContaining(
            "frame length -2147418110 is invalid (expected: 1..16384000): the first bytes 80 01"
                + " 00 02 look like an unframed TBinaryProtocol message (a reply): is the server"
                + " unframed? (ClientOptions.wireKind(WireKind.UNFRAMED); this client's is"
                + " FRAMED)");
  }

  @ParameterizedTest
  @EnumSource(Shape.class)
  void aFramedClientReadingAnHttpResponseIsAskedWhetherTheServerIsHttp(Shape shape)
      throws Exception {
    StubPeer peer =
        answering(
            "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII));
    Throwable failure = call(shape, peer.address, FRAMED, BINARY);
    assertThat(failure)
        .isInstanceOf(TTransportException.class)
        .hasMessageContaining(
            "the first bytes 48 54 54 50 look like an HTTP response: is the server http?"
                + " (ClientOptions.wireKind(WireKind.HTTP); this client's is FRAMED)");
  }

  @ParameterizedTest
  @EnumSource(Shape.class)
  void aCompactClientReadingABinaryReplyIsToldTheServersProtocol(Shape shape) throws Exception {
    // A framed binary reply to a compact request: what a server of another protocol answers.
    byte[] message = {(byte) 0x80, 1, 0, 2, 0, 0, 0, 4, 'e', 'c', 'h', 'o', 0, 0, 0, 1, 0};
    ByteBuffer frame = ByteBuffer.allocate(4 + message.length).putInt(message.length).put(message);
    StubPeer peer = answering(frame.array());
    Throwable failure = call(shape, peer.address, FRAMED, COMPACT);
    // libthrift's type where a caller relies on it: the channel decodes in the protocol
    // (TProtocolException); the sync transport tells before the protocol reads (its own type).
    assertThat(failure)
        .isInstanceOf(shape == Shape.SYNC ? TTransportException.class : TProtocolException.class)
        .hasMessageContaining(
            " is in TBinaryProtocol (first bytes 80 01 00 02); this client uses TCompactProtocol:"
                + " the server answered in another protocol; give the server"
                + " (ServerBuilder.protocol) and the client the same one");
  }

  /** A peer that reads one request's first bytes and answers each connection with {@code bytes}. */
  private StubPeer answering(byte[] bytes) throws IOException {
    StubPeer peer =
        new StubPeer(
            "wrong-shape-peer",
            s -> {
              try {
                DataInputStream in = new DataInputStream(s.getInputStream());
                in.readInt(); // the request's first bytes are here: answer
                OutputStream out = s.getOutputStream();
                out.write(bytes);
                out.flush();
                in.readAllBytes(); // until the client closes
              } catch (IOException ended) {
                // the client closed
              }
            });
    closeAfter.add(peer);
    return peer;
  }
}
