package io.thriftnio.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.internal.FrameLength;
import io.thriftnio.core.util.internal.FrameSizeException;
import io.thriftnio.core.util.internal.Framing;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.transport.TTransportException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(10)
class FramingTest {

  private static final InetSocketAddress PEER = new InetSocketAddress("10.1.2.3", 4567);

  @Test
  void defaultLimitIsLibthriftsDefault() {
    assertThat(Framing.DEFAULT_MAX_FRAME_SIZE)
        .isEqualTo(TConfiguration.DEFAULT_MAX_FRAME_SIZE)
        .isEqualTo(16_384_000);
    assertThat(Framing.HEADER_SIZE).isEqualTo(4);
  }

  @Test
  void lengthAtTheLimitIsAcceptedAndOneMoreIsRejected() throws Exception {
    assertThat(FrameLength.check(1000, 1000, PEER)).isEqualTo(1000);
    assertThat(FrameLength.check(1, 1000, null)).isEqualTo(1);
    assertThat(
            FrameLength.check(Framing.DEFAULT_MAX_FRAME_SIZE, Framing.DEFAULT_MAX_FRAME_SIZE, PEER))
        .isEqualTo(Framing.DEFAULT_MAX_FRAME_SIZE);

    assertThatThrownBy(() -> FrameLength.check(1001, 1000, PEER))
        .isInstanceOfSatisfying(
            FrameSizeException.class,
            e -> {
              assertThat(e.length()).isEqualTo(1001);
              assertThat(e.maxFrameSize()).isEqualTo(1000);
              assertThat(e.peer()).isEqualTo(PEER);
              assertThat(e.getType()).isEqualTo(TTransportException.CORRUPTED_DATA);
              assertThat(e.getMessage())
                  .contains("1001")
                  .contains("exceeds maxFrameSize 1000")
                  .contains(PEER.toString());
            });
    assertThatThrownBy(
            () ->
                FrameLength.check(
                    Framing.DEFAULT_MAX_FRAME_SIZE + 1, Framing.DEFAULT_MAX_FRAME_SIZE, PEER))
        .isInstanceOf(FrameSizeException.class)
        .hasMessageContaining("16384001")
        .hasMessageContaining("16384000");
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -1, -16_384_000, Integer.MIN_VALUE})
  void zeroAndNegativeLengthsAreRejected(int length) {
    assertThatThrownBy(() -> FrameLength.check(length, 1000, PEER))
        .isInstanceOfSatisfying(
            FrameSizeException.class,
            e -> {
              assertThat(e.length()).isEqualTo(length);
              assertThat(e.getMessage())
                  .contains("frame length " + length)
                  .contains("(expected: 1..1000)")
                  .contains(PEER.toString());
            });
  }

  @Test
  void messageWithoutPeerOmitsIt() {
    FrameSizeException e = new FrameSizeException(2000, 1000, null);
    assertThat(e.getMessage()).isEqualTo("frame length 2000 exceeds maxFrameSize 1000");
    assertThat(e.peer()).isNull();
  }

  @Test
  void maxFrameSizeValidation() {
    assertThat(Framing.checkMaxFrameSize(1)).isEqualTo(1);
    assertThat(Framing.checkMaxFrameSize(Integer.MAX_VALUE)).isEqualTo(Integer.MAX_VALUE);
    assertThatThrownBy(() -> Framing.checkMaxFrameSize(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxFrameSize: -1 (expected: > 0)");
    assertThatThrownBy(() -> Framing.checkMaxFrameSize(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxFrameSize: 0 (expected: > 0)");
    assertThatThrownBy(() -> Framing.checkMaxFrameSize(Integer.MIN_VALUE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxFrameSize: " + Integer.MIN_VALUE + " (expected: > 0)");
  }

  @ParameterizedTest
  @ValueSource(
      ints = {
        0,
        1,
        11,
        255,
        256,
        65_535,
        16_384_000,
        Integer.MAX_VALUE,
        -1,
        -256,
        Integer.MIN_VALUE
      })
  void lengthRoundTripsBigEndian(int length) {
    byte[] buf = new byte[7];
    Framing.encodeLength(length, buf, 2);
    assertThat(ByteBuffer.wrap(buf, 2, 4).getInt()).isEqualTo(length);
    assertThat(Framing.decodeLength(buf, 2)).isEqualTo(length);
    assertThat(buf[0]).isZero();
    assertThat(buf[1]).isZero();
    assertThat(buf[6]).isZero();
  }

  @Test
  void encodesTheDocumentedExample() {
    byte[] buf = new byte[4];
    Framing.encodeLength(11, buf, 0);
    assertThat(buf).containsExactly(0, 0, 0, 0x0B);
    assertThat(Framing.decodeLength(new byte[] {(byte) 0x80, 0, 0, 0}, 0))
        .isEqualTo(Integer.MIN_VALUE);
  }

  private static int header(String fourAscii) {
    return ByteBuffer.wrap(fourAscii.getBytes(StandardCharsets.US_ASCII)).getInt();
  }

  @Test
  void foreignBytesAreNamed() {
    assertThat(Framing.describeForeignBytes(header("GET "))).contains("HTTP").contains("\"GET\"");
    assertThat(Framing.describeForeignBytes(header("POST"))).contains("HTTP").contains("\"POST\"");
    assertThat(Framing.describeForeignBytes(header("PRI "))).contains("HTTP");
    assertThat(Framing.describeForeignBytes(header("SSH-"))).contains("SSH");
    assertThat(Framing.describeForeignBytes(0x16030100)).contains("TLS");
    assertThat(Framing.describeForeignBytes(header("*1\r\n")))
        .contains("Redis")
        .contains("*1\\r\\n");
    assertThat(Framing.describeForeignBytes(header("*12\r"))).contains("Redis");
    assertThat(Framing.describeForeignBytes(header("$4\r\n"))).contains("Redis");
  }

  @Test
  void thriftAndOrdinaryBytesAreNotMistakenForForeignProtocols() {
    assertThat(Framing.describeForeignBytes(11)).isNull();
    assertThat(Framing.describeForeignBytes(16_384_001)).isNull();
    assertThat(Framing.describeForeignBytes(0x80010001)).isNull(); // strict binary message header
    assertThat(Framing.describeForeignBytes(0x82210001)).isNull(); // compact message header
    assertThat(Framing.describeForeignBytes(header("*abc"))).isNull();
    assertThat(Framing.describeForeignBytes(0x16020000)).isNull();
  }

  @Test
  void rejectedLengthSaysWhatTheBytesLookLike() {
    int max = Framing.DEFAULT_MAX_FRAME_SIZE;
    assertThatThrownBy(() -> FrameLength.check(header("GET "), max, PEER))
        .hasMessageContaining(PEER.toString())
        .hasMessageContaining(Integer.toString(header("GET ")))
        .hasMessageContaining("exceeds maxFrameSize " + max)
        .hasMessageContaining("the bytes look like an HTTP request (\"GET\")");
    assertThatThrownBy(() -> FrameLength.check(header("POST"), max, PEER))
        .hasMessageContaining("HTTP request (\"POST\")");
    assertThatThrownBy(() -> FrameLength.check(header("SSH-"), max, PEER))
        .hasMessageContaining("SSH banner");
    assertThatThrownBy(() -> FrameLength.check(0x16030100 | 0xAB, max, PEER))
        .hasMessageContaining("TLS handshake");
    assertThatThrownBy(() -> FrameLength.check(header("*1\r\n"), max, PEER))
        .hasMessageContaining("Redis");
    assertThatThrownBy(() -> FrameLength.check(max + 1, max, PEER))
        .hasMessageNotContaining("look like");
  }
}
