package io.thriftnio.core.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.thriftnio.core.CloseCause;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.sasl.SaslIdentity;
import io.thriftnio.core.sasl.SaslQop;
import io.thriftnio.core.sasl.ServerSasl;
import io.thriftnio.core.wire.SaslMessage.Status;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The SASL kind driven through a {@link ServerCodec} as an adapter drives it: steps on an executor
 * the test runs by hand, {@code AWAIT} and the wake-up, byte by byte, the deadline.
 */
@Timeout(30)
class SaslServerDecoderTest {

  private static final InetSocketAddress PEER = new InetSocketAddress("10.0.0.9", 4000);
  private final List<Runnable> steps = new ArrayList<>();

  private ServerCodec codec(Duration timeout, Executor executor) {
    return codec(timeout, executor, (user, password) -> new String(password).equals("pw"));
  }

  private ServerCodec codec(
      Duration timeout, Executor executor, io.thriftnio.core.sasl.PlainAuthenticator users) {
    ServerSasl sasl =
        ServerSasl.builder()
            .plain(users)
            .plainWithoutTls(true)
            .negotiationTimeout(timeout)
            .maxNegotiationMessageSize(100)
            .build();
    WireSettings settings =
        WireSettings.of(1000, EnumSet.of(WireKind.FRAMED, WireKind.SASL), null, "/")
            .withSasl(new SaslSettings(sasl, executor));
    return new ServerCodec(settings, PEER);
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  private static byte[] plain(String user, String password) {
    byte[] credential = ("\0" + user + "\0" + password).getBytes(StandardCharsets.UTF_8);
    return concat(
        bytes(SaslMessage.of(Status.START, "PLAIN").encode()),
        bytes(new SaslMessage(Status.OK, credential).encode()));
  }

  /** The adapter's part of an {@code AWAIT}: starts its step, if any, as no lock is held. */
  private static WireEvent started(ServerCodec codec, WireEvent event) {
    if (event == WireEvent.AWAIT && codec.decoded().step() != null) {
      codec.decoded().step().run();
    }
    return event;
  }

  @Test
  void aPlainNegotiationByteByByteThenAFrame() {
    ServerCodec codec = codec(Duration.ofSeconds(10), steps::add);
    byte[] frame = {0, 0, 0, 3, 7, 8, 9};
    byte[] wire = concat(plain("alice", "pw"), frame);
    int negotiation = wire.length - frame.length;
    ByteSource in = ByteSource.of(wire);
    CompletableFuture<?> awaited = null;
    for (int available = 1; available < negotiation; available++) {
      WireEvent event = codec.next(in, 0, available);
      assertThat(event).as("%d bytes", available).isIn(WireEvent.NEED_MORE, WireEvent.AWAIT);
      if (event == WireEvent.AWAIT) {
        assertThat(codec.decoded().consumed()).isZero(); // the deadline, while waiting
      }
    }
    assertThat(codec.next(in, 0, wire.length)).isEqualTo(WireEvent.AWAIT);
    assertThat(codec.decoded().consumed()).isEqualTo(negotiation);
    awaited = codec.decoded().awaited().toCompletableFuture();
    assertThat(steps)
        .as("the decoder does not call the executor: the adapter starts the step, unlocked")
        .isEmpty();
    codec.decoded().step().run();
    assertThat(codec.handshaking()).isTrue();
    assertThat(codec.next(in, negotiation, frame.length))
        .as("no frame before COMPLETE")
        .isEqualTo(WireEvent.NEED_MORE);
    assertThat(steps).hasSize(1);
    assertThat(awaited).isNotDone();

    steps.remove(0).run();
    assertThat(awaited).isDone();
    assertThat(codec.next(in, negotiation, frame.length)).isEqualTo(WireEvent.ANSWER);
    assertThat(bytes(codec.decoded().answer())).containsExactly(5, 0, 0, 0, 0);
    assertThat(codec.saslIdentity()).isEqualTo(new SaslIdentity("PLAIN", "alice", SaslQop.AUTH));
    assertThat(codec.handshaking()).isFalse();

    assertThat(codec.next(in, negotiation, frame.length)).isEqualTo(WireEvent.MESSAGE);
    Decoded d = codec.decoded();
    assertThat(d.consumed()).isEqualTo(frame.length);
    assertThat(d.payloadLength()).isEqualTo(3);
    assertThat(d.envelope()).isSameAs(codec.envelope());
    assertThat(d.envelope().saslIdentity().authorizationId()).isEqualTo("alice");
  }

  @Test
  void aWrongPasswordIsRefusedWithBadAsASaslFailure() {
    ServerCodec codec = codec(Duration.ofSeconds(10), Runnable::run);
    byte[] wire = plain("alice", "nope");
    assertThat(started(codec, codec.next(ByteSource.of(wire), 0, wire.length)))
        .isEqualTo(WireEvent.AWAIT);
    assertThat(codec.wake()).isEqualTo(WireEvent.REFUSED);
    Refusal refusal = codec.decoded().refusal();
    assertThat(refusal.closeCause()).isEqualTo(CloseCause.SASL_FAILURE);
    assertThat(bytes(refusal.answer()))
        .as("the peer is told no more")
        .isEqualTo(bytes(SaslMessage.of(Status.BAD, "authentication failed").encode()));
    assertThat(refusal.reason())
        .as("the log's line")
        .isEqualTo(
            "SASL PLAIN negotiation from "
                + PEER
                + " failed: javax.security.sasl.SaslException: PLAIN: authentication failed for"
                + " alice (sent BAD \"authentication failed\")");
    assertThat(refusal.fault()).isEqualTo(Refusal.Fault.CREDENTIAL);
    assertThat(codec.rejected()).isTrue();
    assertThat(codec.wake()).as("nothing after a refusal").isEqualTo(WireEvent.NEED_MORE);
  }

  @Test
  void anAuthenticatorThatThrowsTellsThePeerInternalErrorAndTheLogWhy() {
    ServerCodec codec =
        codec(
            Duration.ofSeconds(10),
            Runnable::run,
            (user, password) -> {
              throw new java.net.ConnectException("connection refused to db.internal:5432");
            });
    byte[] wire = plain("alice", "pw");
    assertThat(started(codec, codec.next(ByteSource.of(wire), 0, wire.length)))
        .isEqualTo(WireEvent.AWAIT);
    assertThat(codec.wake()).isEqualTo(WireEvent.REFUSED);
    Refusal refusal = codec.decoded().refusal();
    assertThat(bytes(refusal.answer()))
        .isEqualTo(bytes(SaslMessage.of(Status.ERROR, "internal error").encode()));
    assertThat(refusal.reason())
        .startsWith("SASL PLAIN negotiation from " + PEER + " failed: ")
        .contains("ConnectException: connection refused to db.internal:5432")
        .endsWith("(sent ERROR \"internal error\")");
    assertThat(refusal.fault()).isEqualTo(Refusal.Fault.SERVER);
    assertThat(refusal.error()).hasRootCauseInstanceOf(java.net.ConnectException.class);
    assertThat(refusal.closeCause()).isEqualTo(CloseCause.SASL_FAILURE);
  }

  @Test
  void aConnectionClosedDuringItsStepIsNotAnsweredAfterIt() {
    ServerCodec codec = codec(Duration.ofSeconds(10), steps::add);
    byte[] wire = plain("alice", "pw");
    assertThat(started(codec, codec.next(ByteSource.of(wire), 0, wire.length)))
        .isEqualTo(WireEvent.AWAIT);
    assertThat(codec.endOfInput()).as("not inside a message").isFalse();
    steps.remove(0).run(); // the step finishes after the close
    assertThat(codec.wake()).isEqualTo(WireEvent.NEED_MORE);
    assertThat(codec.saslIdentity()).isNull();
  }

  @Test
  void theDeadlineWakesTheAdapterAndRefusesWithError() throws Exception {
    ServerCodec codec = codec(Duration.ofMillis(50), steps::add);
    byte[] start = bytes(SaslMessage.of(Status.START, "PLAIN").encode());
    assertThat(codec.next(ByteSource.of(start), 0, start.length)).isEqualTo(WireEvent.AWAIT);
    CompletableFuture<?> deadline = codec.decoded().awaited().toCompletableFuture();
    assertThat(codec.next(ByteSource.of(start), 0, start.length))
        .as("one wake-up is enough")
        .isEqualTo(WireEvent.NEED_MORE);
    deadline.get(5, TimeUnit.SECONDS);
    assertThat(codec.wake()).isEqualTo(WireEvent.REFUSED);
    assertThat(codec.decoded().refusal().reason())
        .contains("negotiation not complete after 50 ms (negotiationTimeout) (sent ERROR)");
  }

  @Test
  void anUnknownMechanismIsRefusedWithBadAtOnce() {
    ServerCodec codec = codec(Duration.ofSeconds(10), steps::add);
    byte[] wire = bytes(SaslMessage.of(Status.START, "GSSAPI").encode());
    assertThat(codec.next(ByteSource.of(wire), 0, wire.length)).isEqualTo(WireEvent.REFUSED);
    assertThat(bytes(codec.decoded().refusal().answer()))
        .isEqualTo(bytes(SaslMessage.of(Status.BAD, "Unsupported mechanism type GSSAPI").encode()));
    assertThat(steps).as("nothing ran").isEmpty();
  }

  @Test
  void aFullStepQueueIsAnErrorNotAHang() {
    ServerCodec codec =
        codec(
            Duration.ofSeconds(10),
            task -> {
              throw new java.util.concurrent.RejectedExecutionException("full");
            });
    byte[] wire = plain("alice", "pw");
    assertThat(codec.next(ByteSource.of(wire), 0, wire.length)).isEqualTo(WireEvent.AWAIT);
    CompletableFuture<?> awaited = codec.decoded().awaited().toCompletableFuture();
    codec.decoded().step().run(); // refused at once: the wait ends, with nothing run
    assertThat(awaited).isDone();
    assertThat(codec.wake()).isEqualTo(WireEvent.REFUSED);
    assertThat(bytes(codec.decoded().refusal().answer()))
        .isEqualTo(
            bytes(
                SaslMessage.of(Status.ERROR, "server busy: too many SASL negotiations waiting")
                    .encode()));
    assertThat(codec.decoded().refusal().reason())
        .contains("server busy: too many SASL negotiations waiting (sent ERROR)");
  }
}
