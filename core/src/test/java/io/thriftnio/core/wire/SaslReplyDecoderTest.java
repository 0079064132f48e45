package io.thriftnio.core.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.ClientOptions;
import io.thriftnio.core.WireKind;
import io.thriftnio.core.sasl.ClientSasl;
import io.thriftnio.core.sasl.SaslNegotiationException;
import io.thriftnio.core.wire.SaslMessage.Status;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A SASL client connection's replies, decoded directly: negotiation, frames, every refusal. */
@Timeout(30)
class SaslReplyDecoderTest {

  private static final int MAX = 100;
  private static final InetSocketAddress SERVER = InetSocketAddress.createUnresolved("h", 9);

  private final SaslLayer layer = new SaslLayer();
  private final SaslReplyDecoder decoder =
      new SaslReplyDecoder(MAX, SERVER, "h:9", "GSSAPI", layer);
  private final Decoded out = new Decoded();

  private static byte[] bytes(ByteBuffer... parts) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    for (ByteBuffer p : parts) {
      byte[] b = new byte[p.remaining()];
      p.get(b);
      all.writeBytes(b);
    }
    return all.toByteArray();
  }

  private static ByteBuffer frame(byte[] payload) {
    return ByteBuffer.allocate(4 + payload.length).putInt(payload.length).put(payload).flip();
  }

  @Test
  void negotiationMessagesAreDeliveredWholeOnlyOnceAllTheirBytesAreHere() {
    byte[] wire =
        bytes(
            new SaslMessage(Status.OK, new byte[] {1, 2, 3}).encode(),
            new SaslMessage(Status.COMPLETE, new byte[0]).encode());
    ByteSource in = ByteSource.of(wire);

    for (int available = 0; available < 8; available++) {
      assertThat(decoder.decode(in, 0, available, out))
          .as("%d bytes", available)
          .isEqualTo(WireEvent.NEED_MORE);
    }
    assertThat(decoder.decode(in, 0, wire.length, out)).isEqualTo(WireEvent.MESSAGE);
    assertThat(out.consumed()).isEqualTo(8);
    assertThat(out.payloadOffset()).isZero();
    assertThat(out.payloadLength()).isEqualTo(8);
    assertThat(decoder.decode(in, 8, wire.length - 8, out)).isEqualTo(WireEvent.MESSAGE);
    assertThat(out.consumed()).isEqualTo(5);
  }

  @Test
  void aFramedServersReplyIsRefusedAsNotSasl() {
    byte[] framedReply = bytes(frame(new byte[] {(byte) 0x80, 1, 0, 2}));

    assertThat(decoder.decode(ByteSource.of(framedReply), 0, framedReply.length, out))
        .isEqualTo(WireEvent.REFUSED);
    assertThat(out.refusal().exception())
        .isInstanceOf(SaslNegotiationException.class)
        .hasMessage(
            "SASL GSSAPI negotiation with "
                + SERVER
                + " failed: SASL status byte: 0x00 (expected: 0x01 to"
                + " 0x05): the server may not speak SASL (a framed or unframed server?)");
  }

  @Test
  void aLyingNegotiationLengthIsRefusedBeforeItsPayloadIsWaitedFor() {
    byte[] lying = {2, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff};

    assertThat(decoder.decode(ByteSource.of(lying), 0, lying.length, out))
        .isEqualTo(WireEvent.REFUSED);
    assertThat(out.refusal().exception())
        .hasMessageContaining("SASL OK message length: 2147483647 (expected: <= 100)");
    assertThat(decoder.decode(ByteSource.of(lying), 0, lying.length, out))
        .as("nothing more is read")
        .isEqualTo(WireEvent.NEED_MORE);
  }

  @Test
  void afterCompleteFramesAreBoundedByMaxFrameSize() {
    byte[] wire =
        bytes(
            new SaslMessage(Status.COMPLETE, new byte[0]).encode(),
            frame(new byte[MAX]),
            ByteBuffer.allocate(4).putInt(MAX + 1).flip());
    ByteSource in = ByteSource.of(wire);
    layer.negotiated(new StubClient("auth"));

    assertThat(decoder.decode(in, 0, wire.length, out)).isEqualTo(WireEvent.MESSAGE);
    assertThat(decoder.decode(in, 5, wire.length - 5, out)).isEqualTo(WireEvent.MESSAGE);
    assertThat(out.payloadOffset()).isEqualTo(4);
    assertThat(out.payloadLength()).isEqualTo(MAX);
    assertThat(decoder.decode(in, 5 + 4 + MAX, 4, out)).isEqualTo(WireEvent.REFUSED);
    assertThat(out.refusal().frameSize()).isNotNull();
    assertThat(out.refusal().frameSize().length()).isEqualTo(MAX + 1);
  }

  @Test
  void wrappedFramesAreUnwrappedAndOneThatDoesNotUnwrapEndsTheConnection() {
    byte[] wire =
        bytes(
            new SaslMessage(Status.COMPLETE, new byte[0]).encode(),
            frame(new byte[] {9, 1, 2, 3}),
            frame(new byte[] {7, 7}));
    ByteSource in = ByteSource.of(wire);
    assertThat(decoder.decode(in, 0, wire.length, out)).isEqualTo(WireEvent.MESSAGE);
    layer.negotiated(new StubClient("auth-int"));

    assertThat(decoder.decode(in, 5, wire.length - 5, out)).isEqualTo(WireEvent.MESSAGE);
    assertThat(out.payloadArray()).containsExactly(1, 2, 3);
    assertThat(decoder.decode(in, 13, wire.length - 13, out)).isEqualTo(WireEvent.REFUSED);
    assertThat(out.refusal().exception())
        .isInstanceOf(TTransportException.class)
        .hasMessage("SASL GSSAPI reply of 2 bytes from h:9 does not unwrap: bad MAC");
  }

  @Test
  void nothingIsReadAfterARefusal() {
    byte[] wire = bytes(SaslMessage.of(Status.BAD, "no such user").encode(), frame(new byte[] {1}));
    ByteSource in = ByteSource.of(wire);

    assertThat(decoder.decode(in, 0, wire.length, out)).isEqualTo(WireEvent.MESSAGE);
    int rest = wire.length - out.consumed();
    assertThat(decoder.decode(in, out.consumed(), rest, out)).isEqualTo(WireEvent.NEED_MORE);
  }

  @Test
  void theCodecWrapsRequestsOnlyUnderAWrappingQopAndBoundsTheWrappedSize() throws Exception {
    SaslClientCodec codec =
        ClientCodec.sasl(
            ClientOptions.builder()
                .wireKind(WireKind.SASL)
                .sasl(ClientSasl.plain("u", new char[] {'p'}))
                .maxFrameSize(MAX)
                .build(),
            SERVER,
            "h:9");
    ByteBuffer request = ByteBuffer.wrap(new byte[MAX]);
    assertThat(codec.wrap(request)).isSameAs(request);

    codec.saslLayer().negotiated(new StubClient("auth-conf"));

    assertThat(codec.wrap(ByteBuffer.wrap(new byte[] {5})).array()).containsExactly(9, 5);
    assertThat(codec.head(ByteBuffer.allocate(2), false)).containsExactly(0, 0, 0, 2);
    assertThatThrownBy(() -> codec.wrap(request))
        .isInstanceOf(TTransportException.class)
        .hasMessage(
            "request to h:9 of 100 bytes is 101 bytes wrapped by SASL (expected: <= maxFrameSize"
                + " 100)");
  }

  /** A mechanism whose wrap is a tag byte 9 in front, negotiated with {@code qop}. */
  private static final class StubClient implements SaslClient {
    private final String qop;

    StubClient(String qop) {
      this.qop = qop;
    }

    @Override
    public byte[] unwrap(byte[] incoming, int offset, int len) throws SaslException {
      if (incoming[offset] != 9) {
        throw new SaslException("bad MAC");
      }
      return Arrays.copyOfRange(incoming, offset + 1, offset + len);
    }

    @Override
    public byte[] wrap(byte[] outgoing, int offset, int len) {
      byte[] wrapped = new byte[len + 1];
      wrapped[0] = 9;
      System.arraycopy(outgoing, offset, wrapped, 1, len);
      return wrapped;
    }

    @Override
    public Object getNegotiatedProperty(String name) {
      return Sasl.QOP.equals(name) ? qop : null;
    }

    @Override
    public String getMechanismName() {
      return "STUB";
    }

    @Override
    public boolean hasInitialResponse() {
      return false;
    }

    @Override
    public byte[] evaluateChallenge(byte[] challenge) {
      return new byte[0];
    }

    @Override
    public boolean isComplete() {
      return true;
    }

    @Override
    public void dispose() {}
  }
}
