package io.thriftnio.testkit.conformance;

import static io.thriftnio.testkit.Waits.await;
import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.CloseCause;
import io.thriftnio.core.ConnectionInfo;
import io.thriftnio.core.ConnectionListener;
import io.thriftnio.core.ServerStats;
import io.thriftnio.core.ThriftServer;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.sasl.SaslQop;
import io.thriftnio.core.sasl.ServerSasl;
import io.thriftnio.testkit.BenchHandler;
import io.thriftnio.testkit.gen.BenchService;
import io.thriftnio.testkit.sasl.SaslPeers;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToLongFunction;
import javax.security.sasl.SaslClient;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hostile and broken SASL peers against a server accepting {@link WireKind#SASL}, bytes written by
 * hand: a negotiation cut short by the peer, a negotiation message lying about its length (2 GB,
 * refused before allocation, and the limit at its boundary), a negotiation that never finishes
 * (closed at {@code negotiationTimeout}), a frame before {@code COMPLETE}, garbage after it, a
 * wrapped frame that does not unwrap and one declaring 2 GB. Each case asserts what the peer reads
 * (the {@code ERROR} message and its reason, or a close), the {@link ServerStats} counter, the
 * connection's {@link CloseCause}, and that no call reached the handler. A transport runs it once
 * per strategy, one {@link ServerCell} each.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@Matrix.Of(Matrix.PROTOCOLS)
public abstract class SaslAdversarialSuite extends ServerCellSuite {

  private static final Duration WITHIN = Duration.ofSeconds(10);
  private static final Duration NEGOTIATION_TIMEOUT = Duration.ofMillis(300);
  private static final TProtocolFactory BINARY = new TBinaryProtocol.Factory();

  /** What a user store's failure says of the server's insides: it must not leave the server. */
  private static final String INSIDE = "db.internal:5432";

  /** A user whose credential the authenticator cannot check: its store is down. */
  private static final String STORE_DOWN = "carol";

  /** A user whose check fails with a bug of the authenticator's. */
  private static final String BUGGY = "dave";

  /** Above a DIGEST-MD5 response (about 260 bytes), small enough to test at its boundary. */
  private static final int MAX_MESSAGE = 512;

  private static final int START = 1;
  private static final int OK = 2;
  private static final int BAD = 3;
  private static final int ERROR = 4;
  private static final int COMPLETE = 5;

  private final List<ThriftServer> servers = new ArrayList<>();
  private final List<AutoCloseable> clients = new ArrayList<>();
  private final AtomicInteger echoes = new AtomicInteger();
  private final List<CloseCause> closes = new CopyOnWriteArrayList<>();
  private ThriftServer server;

  @AfterEach
  void closeEverything() throws Exception {
    for (AutoCloseable c : clients) {
      c.close();
    }
    servers.forEach(ThriftServer::close);
  }

  /** PLAIN (any password of a known user) and DIGEST-MD5 (auth-int), SASL only. */
  private void start() throws Exception {
    BenchHandler handler =
        new BenchHandler() {
          @Override
          public ByteBuffer echo(ByteBuffer payload) {
            echoes.incrementAndGet();
            return super.echo(payload);
          }
        };
    server =
        newServerBuilder()
            .processor(new BenchService.Processor<>(handler))
            .protocol(BINARY)
            .ioStrategy(strategy())
            .wireKinds(WireKind.SASL)
            .sasl(
                ServerSasl.builder()
                    .plain(
                        (user, password) -> {
                          if (user.equals(STORE_DOWN)) {
                            throw new java.net.ConnectException("connection refused to " + INSIDE);
                          }
                          if (user.equals(BUGGY)) {
                            throw new IllegalStateException("no session to " + INSIDE);
                          }
                          return SaslPeers.USERS.containsKey(user);
                        })
                    .digestMd5(
                        SaslPeers.PROTOCOL, SaslPeers.SERVER_NAME, SaslPeers.digestServerHandler())
                    .plainWithoutTls(true)
                    .qop(SaslQop.AUTH_INT, SaslQop.AUTH)
                    .negotiationTimeout(NEGOTIATION_TIMEOUT)
                    .maxNegotiationMessageSize(MAX_MESSAGE)
                    .build())
            .connectionListener(
                new ConnectionListener() {
                  @Override
                  public void onOpen(ConnectionInfo connection) {}

                  @Override
                  public void onClose(ConnectionInfo connection, CloseCause cause) {
                    closes.add(cause);
                  }
                })
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .build();
    servers.add(server);
    server.start();
  }

  private RawConnection raw() throws Exception {
    RawConnection raw = RawConnection.open(server.localAddress());
    clients.add(raw);
    return raw;
  }

  private static byte[] message(int status, byte[] payload) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeByte(status);
    out.writeInt(payload.length);
    out.write(payload);
    return bytes.toByteArray();
  }

  private static byte[] message(int status, String text) throws IOException {
    return message(status, text.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  /** A negotiation message from the server: its status, then its payload as text. */
  private record Answer(int status, byte[] payload) {
    String text() {
      return new String(payload, StandardCharsets.UTF_8);
    }
  }

  private static Answer read(RawConnection raw) throws IOException {
    int status = raw.readExactly(1)[0];
    int length = ByteBuffer.wrap(raw.readExactly(4)).getInt();
    return new Answer(status, raw.readExactly(length));
  }

  private static byte[] plainCredential(String user, String password) {
    return ("\0" + user + "\0" + password).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] echoCall(int seqid) throws Exception {
    return RawConnection.encodeCall(
        BINARY, "echo", seqid, new BenchService.echo_args(ByteBuffer.wrap(new byte[] {1, 2, 3})));
  }

  private void awaitCount(String what, ToLongFunction<ServerStats> counter, long expected)
      throws InterruptedException {
    await(what)
        .atMost(WITHIN)
        .untilAsserted(
            () ->
                assertThat(counter.applyAsLong(server.stats()) == expected)
                    .as("%s", server.stats())
                    .isTrue());
  }

  /** The peer was sent ERROR with {@code reason}, closed, counted once as a SASL failure. */
  private void assertFailedWith(RawConnection raw, String reason) throws Exception {
    Answer answer = read(raw);
    assertThat(answer.status()).as(answer.text()).isEqualTo(ERROR);
    assertThat(answer.text()).contains(reason);
    assertThat(raw.awaitClosedBy(WITHIN)).as("bytes after the ERROR").isEmpty();
    // As a peer does on the end of the stream: the server, which shut its output down after the
    // ERROR and reads on for a moment so as not to reset it, closes at once.
    raw.close();
    awaitCount("saslFailures", ServerStats::saslFailures, 1);
    await("the close told")
        .atMost(WITHIN)
        .untilAsserted(() -> assertThat(closes.size() == 1).as("%s", server.stats()).isTrue());
    assertThat(closes).containsExactly(CloseCause.SASL_FAILURE);
    assertThat(server.stats().badFrames()).isZero();
    assertThat(echoes).as("calls that reached the handler").hasValue(0);
  }

  /**
   * The peer was sent {@code status} with exactly {@code reason}, closed, counted once as a SASL
   * failure; returns every byte it received.
   */
  private byte[] assertRefusedWithExactly(RawConnection raw, int status, String reason)
      throws Exception {
    Answer answer = read(raw);
    byte[] after = raw.awaitClosedBy(WITHIN);
    raw.close();
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    all.writeBytes(new byte[] {(byte) answer.status()});
    all.writeBytes(ByteBuffer.allocate(4).putInt(answer.payload().length).array());
    all.writeBytes(answer.payload());
    all.writeBytes(after);
    assertThat(answer.status()).as(answer.text()).isEqualTo(status);
    assertThat(answer.text()).isEqualTo(reason);
    assertThat(after).as("bytes after the refusal").isEmpty();
    awaitCount("saslFailures", ServerStats::saslFailures, 1);
    await("the close told")
        .atMost(WITHIN)
        .untilAsserted(() -> assertThat(closes.size() == 1).as("%s", server.stats()).isTrue());
    assertThat(closes).containsExactly(CloseCause.SASL_FAILURE);
    assertThat(echoes).as("calls that reached the handler").hasValue(0);
    return all.toByteArray();
  }

  // ---- what the peer is told, what the log is told ----------------------------------------------

  @Test
  void anAuthenticatorWhoseStoreIsDownTellsThePeerInternalErrorAndTheLogItsDetail()
      throws Exception {
    start();
    try (LogCapture log = new LogCapture()) {
      RawConnection raw = raw();
      int port = raw.localAddress().getPort();
      raw.write(concat(message(START, "PLAIN"), message(OK, plainCredential(STORE_DOWN, "pw"))));
      byte[] wire = assertRefusedWithExactly(raw, ERROR, "internal error");
      String seen = new String(wire, StandardCharsets.ISO_8859_1);
      assertThat(seen).doesNotContain(INSIDE).doesNotContain("ConnectException");
      await("the WARN line")
          .atMost(WITHIN)
          .untilAsserted(
              () ->
                  assertThat(!log.linesContaining(INSIDE).isEmpty())
                      .as("%s", server.stats())
                      .isTrue());
      assertThat(log.linesContaining(INSIDE))
          .as("the log has the detail and the peer")
          .anySatisfy(
              line ->
                  assertThat(line)
                      .contains("WARN")
                      .contains("ConnectException")
                      .contains(":" + port)
                      .contains("PLAIN"));
    }
  }

  @Test
  void anAuthenticatorThatThrowsAtRunTimeTellsThePeerInternalErrorOnly() throws Exception {
    start();
    RawConnection raw = raw();
    raw.write(concat(message(START, "PLAIN"), message(OK, plainCredential(BUGGY, "pw"))));
    byte[] wire = assertRefusedWithExactly(raw, ERROR, "internal error");
    assertThat(new String(wire, StandardCharsets.ISO_8859_1))
        .doesNotContain(INSIDE)
        .doesNotContain("IllegalStateException");
  }

  @Test
  void aRefusedCredentialTellsThePeerAuthenticationFailedOnly() throws Exception {
    start();
    RawConnection raw = raw();
    raw.write(concat(message(START, "PLAIN"), message(OK, plainCredential("mallory", "pw"))));
    byte[] wire = assertRefusedWithExactly(raw, BAD, "authentication failed");
    assertThat(new String(wire, StandardCharsets.ISO_8859_1)).doesNotContain("mallory");
  }

  // ---- the negotiation --------------------------------------------------------------------------

  @Test
  void aNegotiationLengthOf2GbIsRefusedBeforeAllocation() throws Exception {
    start();
    RawConnection raw = raw();
    raw.write(new byte[] {START, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff});
    assertFailedWith(raw, "SASL START message length: 2147483647 (expected: <= 512)");
  }

  @Test
  void aResponseLengthOf2GbAfterAGoodStartIsRefused() throws Exception {
    start();
    RawConnection raw = raw();
    raw.write(
        concat(message(START, "PLAIN"), new byte[] {OK, (byte) 0x80, 0, 0, 0})); // negative too
    assertFailedWith(raw, "SASL OK message length: 2147483648 (expected: <= 512)");
  }

  @Test
  void aMessageOfExactlyTheLimitIsReadAndOneByteMoreIsRefused() throws Exception {
    start();
    byte[] atLimit = plainCredential("alice", "x".repeat(MAX_MESSAGE - 7));
    assertThat(atLimit).hasSize(MAX_MESSAGE);
    RawConnection good = raw();
    good.write(concat(message(START, "PLAIN"), message(OK, atLimit)));
    assertThat(read(good).status()).isEqualTo(COMPLETE);

    RawConnection bad = raw();
    bad.write(
        concat(
            message(START, "PLAIN"),
            message(OK, plainCredential("alice", "x".repeat(MAX_MESSAGE - 6)))));
    assertFailedWith(bad, "SASL OK message length: 513 (expected: <= 512)");
  }

  @Test
  void aBadStatusByteIsRefused() throws Exception {
    start();
    RawConnection raw = raw();
    raw.write(concat(message(START, "PLAIN"), message(9, "?")));
    assertFailedWith(raw, "SASL status byte: 0x09 (expected: 0x01 to 0x05)");
  }

  @Test
  void aFrameBeforeCompleteIsNeverServed() throws Exception {
    start();
    RawConnection raw = raw();
    raw.write(message(START, "PLAIN"));
    raw.writeFrame(echoCall(1)); // a frame where the initial response belongs
    assertFailedWith(raw, "SASL status byte: 0x00");
  }

  @Test
  void aTruncatedNegotiationIsClosedAndCountedWithoutAFailure() throws Exception {
    start();
    RawConnection raw = raw();
    raw.write(new byte[] {START, 0, 0, 0, 5, 'P', 'L'}); // 5 bytes declared, 2 sent
    await("the connection open")
        .atMost(WITHIN)
        .untilAsserted(
            () ->
                assertThat(server.stats().openConnections() == 1)
                    .as("%s", server.stats())
                    .isTrue());
    raw.shutdownOutput();
    raw.awaitClosedBy(WITHIN);
    awaitCount("truncatedFrames", ServerStats::truncatedFrames, 1);
    awaitCount("openConnections", ServerStats::openConnections, 0);
    assertThat(server.stats().saslFailures()).isZero();
    await("the close told")
        .atMost(WITHIN)
        .untilAsserted(() -> assertThat(closes.size() == 1).as("%s", server.stats()).isTrue());
    assertThat(closes).containsExactly(CloseCause.PEER_CLOSED);
  }

  @Test
  void aPeerLeavingInTheMiddleOfADigestNegotiationLeavesNothingOpen() throws Exception {
    start();
    RawConnection raw = raw();
    SaslClient digest = SaslPeers.digestClient("alice", "alice-secret", SaslQop.AUTH_INT);
    raw.write(concat(message(START, "DIGEST-MD5"), message(OK, new byte[0])));
    Answer challenge = read(raw);
    assertThat(challenge.status()).isEqualTo(OK);
    byte[] response = message(OK, digest.evaluateChallenge(challenge.payload()));
    raw.write(java.util.Arrays.copyOf(response, response.length / 2));
    raw.shutdownOutput();
    raw.awaitClosedBy(WITHIN);
    awaitCount("truncatedFrames", ServerStats::truncatedFrames, 1);
    awaitCount("openConnections", ServerStats::openConnections, 0);
    await("the close told")
        .atMost(WITHIN)
        .untilAsserted(() -> assertThat(closes.size() == 1).as("%s", server.stats()).isTrue());
    assertThat(closes).containsExactly(CloseCause.PEER_CLOSED);
  }

  @Test
  void aNegotiationThatNeverStartsItsResponseIsClosedAtTheTimeout() throws Exception {
    start();
    RawConnection raw = raw();
    long began = System.nanoTime();
    raw.write(message(START, "PLAIN")); // and never the initial response
    assertFailedWith(raw, "negotiation not complete after 300 ms (negotiationTimeout)");
    assertThat(Duration.ofNanos(System.nanoTime() - began)).isGreaterThan(NEGOTIATION_TIMEOUT);
  }

  @Test
  void aDigestNegotiationThatStopsAfterTheChallengeIsClosedAtTheTimeout() throws Exception {
    start();
    RawConnection raw = raw();
    raw.write(concat(message(START, "DIGEST-MD5"), message(OK, new byte[0])));
    assertThat(read(raw).status()).isEqualTo(OK); // the challenge; the peer answers nothing
    assertFailedWith(raw, "negotiation not complete after 300 ms (negotiationTimeout)");
  }

  // ---- after COMPLETE ---------------------------------------------------------------------------

  @Test
  void garbageAfterCompleteIsNotServedAndClosesTheConnection() throws Exception {
    start();
    RawConnection raw = raw();
    raw.write(concat(message(START, "PLAIN"), message(OK, plainCredential("bob", "any"))));
    assertThat(read(raw).status()).isEqualTo(COMPLETE);
    raw.writeFrame(new byte[] {0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b});
    raw.awaitClosedBy(WITHIN);
    awaitCount("badFrames", ServerStats::badFrames, 1);
    assertThat(echoes).hasValue(0);
    assertThat(server.stats().saslFailures()).isZero();
  }

  /** DIGEST-MD5 under auth-int, negotiated by hand; the client, to wrap and unwrap with. */
  private SaslClient negotiateAuthInt(RawConnection raw) throws Exception {
    SaslClient digest = SaslPeers.digestClient("alice", "alice-secret", SaslQop.AUTH_INT);
    raw.write(concat(message(START, "DIGEST-MD5"), message(OK, new byte[0])));
    Answer challenge = read(raw);
    assertThat(challenge.status()).isEqualTo(OK);
    raw.write(message(OK, digest.evaluateChallenge(challenge.payload())));
    Answer complete = read(raw);
    assertThat(complete.status()).as(complete.text()).isEqualTo(COMPLETE);
    digest.evaluateChallenge(complete.payload());
    assertThat(digest.isComplete()).isTrue();
    return digest;
  }

  @Test
  void aWrappedFrameThatDoesNotUnwrapIsRefused() throws Exception {
    start();
    RawConnection raw = raw();
    SaslClient digest = negotiateAuthInt(raw);
    byte[] call = echoCall(7);
    raw.writeFrame(digest.wrap(call, 0, call.length));
    byte[] wrappedReply = raw.readFrame();
    BenchService.echo_result result = new BenchService.echo_result();
    RawConnection.decodeReply(BINARY, digest.unwrap(wrappedReply, 0, wrappedReply.length), result);
    assertThat(result.getSuccess()).as("a good wrapped call is answered first").hasSize(3);
    assertThat(echoes).hasValue(1);

    byte[] forged = digest.wrap(call, 0, call.length);
    forged[forged.length / 2] ^= 0x40; // its MAC no longer matches
    raw.writeFrame(forged);
    raw.awaitClosedBy(WITHIN);
    awaitCount("badFrames", ServerStats::badFrames, 1);
    assertThat(echoes).hasValue(1);
  }

  @Test
  void aWrappedFrameDeclaring2GbIsRefusedBeforeAllocation() throws Exception {
    start();
    RawConnection raw = raw();
    negotiateAuthInt(raw);
    raw.write(new byte[] {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff, 1, 2, 3});
    raw.awaitClosedBy(WITHIN);
    awaitCount("badFrames", ServerStats::badFrames, 1);
    assertThat(echoes).hasValue(0);
  }
}
