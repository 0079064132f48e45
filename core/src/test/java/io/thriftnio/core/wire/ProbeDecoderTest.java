package io.thriftnio.core.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.thriftnio.core.WireKind;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A connection accepted while its server drains ({@link WireSettings#forProbes()}): the health
 * probe is answered {@code 503} and ends it; anything else ends it at once, unanswered and not
 * counted.
 */
@Timeout(30)
class ProbeDecoderTest {

  private static final int MAX = 1000;

  private static WireSettings settings() {
    return WireSettings.of(
            MAX,
            EnumSet.of(WireKind.FRAMED, WireKind.HTTP),
            new TBinaryProtocol.Factory(),
            "/thrift")
        .withHealth("/health", () -> true);
  }

  private static ServerCodec probeCodec() {
    return new ServerCodec(settings().forProbes(), new InetSocketAddress("10.0.0.1", 7));
  }

  /** The one step that ends the connection, its bytes arriving one by one; NEED_MORE until then. */
  private static Decoded lastStep(ServerCodec codec, byte[] wire) {
    ByteSource in = ByteSource.of(wire);
    for (int end = 1; end <= wire.length; end++) {
      WireEvent event = codec.next(in, 0, end);
      if (event != WireEvent.NEED_MORE) {
        assertThat(event).as("an answer, never a refusal or a message").isEqualTo(WireEvent.ANSWER);
        assertThat(codec.decoded().closeAfter()).as("the connection closes after it").isNotNull();
        assertThat(codec.decoded().refusesRequest()).as("not counted as a bad request").isFalse();
        assertThat(codec.rejected()).as("nothing after it is read").isTrue();
        return codec.decoded();
      }
    }
    throw new AssertionError("the codec still waits after " + wire.length + " bytes");
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static String text(Decoded d) {
    return StandardCharsets.ISO_8859_1.decode(d.answer()).toString();
  }

  @Test
  void theProbeIsAnswered503WithConnectionClose() {
    byte[] probe =
        ascii("GET /health HTTP/1.1\r\nHost: pod\r\nUser-Agent: kube-probe/1.30\r\n\r\n");
    Decoded d = lastStep(probeCodec(), probe);
    assertThat(d.consumed()).isEqualTo(probe.length);
    assertThat(text(d))
        .startsWith("HTTP/1.1 503 Service Unavailable\r\n")
        .contains("\r\nConnection: close\r\n")
        .endsWith("\r\n\r\ndraining\n");
  }

  @Test
  void aFrameEndsTheConnectionAtItsFirstByteUnanswered() {
    Decoded d = lastStep(probeCodec(), new byte[] {0, 0, 0, 12, (byte) 0x80, 1, 0, 1});
    assertThat(d.answer()).isNull();
  }

  @Test
  void anHttpCallEndsTheConnectionAtItsHeadBeforeItsBody() {
    String head = "POST /thrift HTTP/1.1\r\nContent-Length: 500\r\n\r\n";
    Decoded d = lastStep(probeCodec(), ascii(head)); // no body byte needed
    assertThat(d.answer()).isNull();
  }

  @Test
  void anotherGetOrMalformedHttpEndsTheConnectionUnanswered() {
    assertThat(lastStep(probeCodec(), ascii("GET /healthz HTTP/1.1\r\n\r\n")).answer()).isNull();
    assertThat(lastStep(probeCodec(), ascii("GET /health HTTP/9.9\r\n")).answer()).isNull();
  }

  @Test
  void onlyAServerWithAHealthPathHasProbeConnections() {
    WireSettings none = WireSettings.of(MAX, EnumSet.of(WireKind.HTTP), null, "/");
    assertThatThrownBy(none::forProbes)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("healthPath");
    assertThat(settings().forProbes().probesOnly()).isTrue();
    assertThat(settings().probesOnly()).isFalse();
  }
}
