package io.thriftnio.core.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.wire.SaslMessage.Status;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The negotiation message codec: its bytes, byte by byte, and its bounds before allocation. */
@Timeout(10)
class SaslMessageTest {

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  @Test
  void encodesStatusLengthAndPayload() {
    assertThat(bytes(SaslMessage.of(Status.START, "PLAIN").encode()))
        .containsExactly(1, 0, 0, 0, 5, 'P', 'L', 'A', 'I', 'N');
    assertThat(bytes(new SaslMessage(Status.COMPLETE, new byte[0]).encode()))
        .containsExactly(5, 0, 0, 0, 0);
  }

  @ParameterizedTest
  @EnumSource(Status.class)
  void readsBackWhatItWrote(Status status) {
    byte[] wire = bytes(SaslMessage.of(status, "reason").encode());
    SaslMessage read = SaslMessage.read(ByteSource.of(wire), 0, wire.length, 100);
    assertThat(read.status()).isEqualTo(status);
    assertThat(read.text()).isEqualTo("reason");
  }

  @Test
  void needsEveryByteAndReadsNothingBeyondTheMessage() {
    byte[] one = bytes(SaslMessage.of(Status.OK, "challenge").encode());
    byte[] wire = Arrays.copyOf(one, one.length + 3); // the start of the next message after it
    for (int available = 0; available < one.length; available++) {
      assertThat(SaslMessage.read(ByteSource.of(wire), 0, available, 100))
          .as("%d bytes", available)
          .isNull();
    }
    assertThat(SaslMessage.read(ByteSource.of(wire), 0, wire.length, 100).text())
        .isEqualTo("challenge");
  }

  @Test
  void aBadStatusByteIsRefusedAtTheFirstByte() {
    assertThatThrownBy(() -> SaslMessage.read(ByteSource.of(new byte[] {0}), 0, 1, 100))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("SASL status byte: 0x00 (expected: 0x01 to 0x05)");
    assertThatThrownBy(() -> SaslMessage.read(ByteSource.of(new byte[] {(byte) 0x80}), 0, 1, 100))
        .hasMessage("SASL status byte: 0x80 (expected: 0x01 to 0x05)");
  }

  @Test
  void aLengthAboveTheBoundIsRefusedFromItsFiveBytesAlone() {
    byte[] lying = {2, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff};
    assertThatThrownBy(() -> SaslMessage.read(ByteSource.of(lying), 0, lying.length, 1 << 20))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("SASL OK message length: 2147483647 (expected: <= 1048576)");
    byte[] negative = {2, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xfe};
    assertThatThrownBy(() -> SaslMessage.read(ByteSource.of(negative), 0, 5, 100))
        .hasMessage("SASL OK message length: 4294967294 (expected: <= 100)");
  }

  @Test
  void theBoundIsAcceptedAndOneMoreRefused() {
    byte[] atBound = bytes(new SaslMessage(Status.OK, new byte[64]).encode());
    assertThat(SaslMessage.read(ByteSource.of(atBound), 0, atBound.length, 64).payload())
        .hasSize(64);
    byte[] above = bytes(new SaslMessage(Status.OK, new byte[65]).encode());
    assertThatThrownBy(() -> SaslMessage.read(ByteSource.of(above), 0, 5, 64))
        .hasMessage("SASL OK message length: 65 (expected: <= 64)");
  }

  @Test
  void readsAtAnOffset() {
    byte[] message = bytes(SaslMessage.of(Status.BAD, "no").encode());
    byte[] wire = new byte[3 + message.length];
    System.arraycopy(message, 0, wire, 3, message.length);
    SaslMessage read = SaslMessage.read(ByteSource.of(wire), 3, message.length, 10);
    assertThat(read.status()).isEqualTo(Status.BAD);
    assertThat(read.text()).isEqualTo("no");
  }
}
